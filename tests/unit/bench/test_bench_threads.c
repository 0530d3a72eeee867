/*
 * test_bench_threads.c - the server CPU split by thread group (bench_threads.c): group
 * names, the split of two readings (new, ended and reused threads, idle groups, the
 * "other" group, the order), and a reading of this process's own named thread, whose
 * CPU time must come in nanoseconds, not in clock ticks.
 */
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_threads.h"
#include "unit/test.h"

static void test_group_names(void)
{
	char g[16];

	bench_thread_group("shoal-sync12", g);
	CHECK(strcmp(g, "shoal-sync") == 0);
	bench_thread_group("shoal-loop0", g);
	CHECK(strcmp(g, "shoal-loop") == 0);
	bench_thread_group("ganesha.nfsd", g);
	CHECK(strcmp(g, "ganesha.nfsd") == 0);
	bench_thread_group("x9y3", g);
	CHECK(strcmp(g, "x9y") == 0);
	bench_thread_group("1234", g); /* digits only: kept */
	CHECK(strcmp(g, "1234") == 0);
	bench_thread_group("", g);
	CHECK(strcmp(g, "") == 0);
	bench_thread_group("abcdefghijklmn7", g); /* the longest name Linux keeps */
	CHECK(strcmp(g, "abcdefghijklmn") == 0);
}

/* A thread that has run for @ticks clock ticks of 10 ms. */
static struct bench_thread_time tick(pid_t tid, const char *group, uint64_t ticks)
{
	struct bench_thread_time t = {.tid = tid, .ns = ticks * 10000000};

	snprintf(t.group, sizeof(t.group), "%s", group);
	return t;
}

static void test_split(void)
{
	struct bench_thread_time ta[] = {
		tick(1, "shoal-loop", 100), tick(2, "shoal-loop", 50), tick(3, "shoal-sync", 10),
		tick(4, "shoal-server", 5), tick(6, "shoal-wlog", 70), tick(7, "shoal-sync", 500),
	};
	struct bench_thread_time tb[] = {
		tick(1, "shoal-loop", 300), tick(2, "shoal-loop", 150),
		tick(3, "shoal-sync", 110), tick(4, "shoal-server", 5), /* idle: left out */
		tick(5, "shoal-read", 40),				/* new: counts whole */
		tick(7, "shoal-sync", 20), /* its number reused by a new thread */
	};
	struct bench_threads a = {ta, 6, 6}, b = {tb, 6, 6};
	struct bench_thread_cpu out[BENCH_MAX_THREAD_GROUPS] = {0};
	unsigned n = bench_threads_split(&a, &b, 1000, out, BENCH_MAX_THREAD_GROUPS);

	/* 1000 ops: a tick is 10 us per op */
	CHECK_EQ(n, 3);
	CHECK(strcmp(out[0].name, "shoal-loop") == 0);
	CHECK(out[0].cpu_us_per_op == 3000);
	CHECK(strcmp(out[1].name, "shoal-sync") == 0);
	CHECK(out[1].cpu_us_per_op == 1200);
	CHECK(strcmp(out[2].name, "shoal-read") == 0);
	CHECK(out[2].cpu_us_per_op == 400);
	/* nothing measured, nothing to split */
	CHECK_EQ(bench_threads_split(&a, &b, 0, out, BENCH_MAX_THREAD_GROUPS), 0);
}

/* Beyond @max groups the smallest add up as "other"; equal groups go by name. */
static void test_other(void)
{
	struct bench_thread_time tb[] = {
		tick(1, "b", 10), tick(2, "a", 10), tick(3, "c", 30),
		tick(4, "d", 1),  tick(5, "e", 2),
	};
	struct bench_threads a = {0}, b = {tb, 5, 5};
	struct bench_thread_cpu out[3] = {0};

	/* 10,000 ops: a tick is 1 us per op */
	CHECK_EQ(bench_threads_split(&a, &b, 10000, out, 3), 3);
	CHECK(strcmp(out[0].name, "c") == 0 && out[0].cpu_us_per_op == 30);
	CHECK(strcmp(out[1].name, "a") == 0 && out[1].cpu_us_per_op == 10);
	CHECK(strcmp(out[2].name, "other") == 0 && out[2].cpu_us_per_op == 13);
}

static pthread_barrier_t named, done;
static pid_t worker_tid;

/* Run on this thread's CPU until it has used @ns. */
static void spin(uint64_t ns)
{
	struct timespec ts;

	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while ((uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec < ns);
}

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "bt-worker7");
	spin(3000000);
	pthread_barrier_wait(&named);
	pthread_barrier_wait(&done);
	return NULL;
}

/*
 * A reading of this process holds its named thread, grouped, with the 3 ms of CPU it
 * used (in clock ticks of 10 ms that would read 0 or 10 ms), and its main thread.
 */
static void test_read_self(void)
{
	struct bench_threads s = {0};
	pid_t me = getpid(), bad = -1;
	bool seen_worker = false, seen_main = false;
	uint64_t worker_ns = 0;
	pthread_t t;

	CHECK_EQ(pthread_barrier_init(&named, NULL, 2), 0);
	CHECK_EQ(pthread_barrier_init(&done, NULL, 2), 0);
	CHECK_EQ(pthread_create(&t, NULL, worker, NULL), 0);
	pthread_barrier_wait(&named);
	CHECK_EQ(bench_threads_read(&s, &me, 1), 0);
	pthread_barrier_wait(&done);
	pthread_join(t, NULL);
	for (unsigned i = 0; i < s.n; i++) {
		if (s.t[i].tid == worker_tid) {
			seen_worker = strcmp(s.t[i].group, "bt-worker") == 0;
			worker_ns = s.t[i].ns;
		}
		if (s.t[i].tid == me)
			seen_main = s.t[i].group[0] != '\0';
	}
	CHECK(seen_worker);
	CHECK(worker_ns >= 3000000 && worker_ns < 10000000);
	CHECK(seen_main);
	CHECK(s.n >= 2); /* a sanitizer may run a thread of its own */
	/* a process that is not there */
	CHECK_EQ(bench_threads_read(&s, &bad, 1), -1);
	bench_threads_free(&s);
	CHECK(s.t == NULL && s.n == 0);
	pthread_barrier_destroy(&named);
	pthread_barrier_destroy(&done);
}

TESTS(test_group_names, test_split, test_other, test_read_self);
