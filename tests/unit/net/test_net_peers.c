/*
 * test_net_peers.c - unit tests for the connections-per-client table
 * (src/net/net_peers.c): the limit per address, an IPv4 address and its IPv4-mapped
 * IPv6 form counted as one client, ports ignored, counts given back, each address's
 * account of call memory (the one a take returns) outliving its last connection's count
 * while referenced, and a long random run of takes and gives over many addresses checked
 * against a plain array (counts, and each address keeping one account of its own), which
 * exercises probing and backward-shift deletion in a table kept half full.
 */
#include <arpa/inet.h>

#include "net/net_peers.h"
#include "unit/test.h"

static struct sockaddr_storage v4(uint32_t addr, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	s->sin_addr.s_addr = htonl(addr);
	return ss;
}

static struct sockaddr_storage v6(const char *text, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	if (inet_pton(AF_INET6, text, &s->sin6_addr) != 1)
		abort();
	return ss;
}

/* net_peers_take() for a test that does not keep the connection's reference to the
 * account (the table holds its own while the address is counted): true if counted. */
static bool take(struct net_peers *p, const struct sockaddr_storage *ss)
{
	struct net_acct *a = net_peers_take(p, ss);

	net_acct_put(a);
	return a != NULL;
}

/* Up to the limit per address, then refused; another address is not affected; a
 * connection given back makes room for one more. */
static void test_limit_per_address(void)
{
	struct sockaddr_storage a = v4(0x7f000001, 700), b = v4(0x7f000002, 700);
	struct net_peers p;

	CHECK_EQ(net_peers_init(&p, 64, 3), 0);
	for (int i = 0; i < 3; i++)
		CHECK(take(&p, &a));
	CHECK(!take(&p, &a));
	CHECK_EQ(net_peers_count(&p, &a), 3);
	CHECK(take(&p, &b));
	CHECK_EQ(net_peers_count(&p, &b), 1);
	net_peers_give(&p, &a);
	CHECK_EQ(net_peers_count(&p, &a), 2);
	CHECK(take(&p, &a));
	CHECK(!take(&p, &a));
	for (int i = 0; i < 3; i++)
		net_peers_give(&p, &a);
	net_peers_give(&p, &b);
	CHECK_EQ(net_peers_count(&p, &a), 0);
	CHECK_EQ(net_peers_count(&p, &b), 0);
	net_peers_give(&p, &a); /* not counted: ignored, not wrapped below zero */
	CHECK_EQ(net_peers_count(&p, &a), 0);
	CHECK(take(&p, &a));
	net_peers_fini(&p);
}

/* The client is its address: other ports, and the IPv4-mapped IPv6 form, are it too;
 * a different IPv6 address is another client. */
static void test_address_is_the_client(void)
{
	struct sockaddr_storage a = v4(0x0a000005, 1000);
	struct sockaddr_storage a_port = v4(0x0a000005, 2000);
	struct sockaddr_storage a_mapped = v6("::ffff:10.0.0.5", 3000);
	struct sockaddr_storage other = v6("fe80::5", 1000);
	struct net_peers p;

	CHECK_EQ(net_peers_init(&p, 16, 3), 0);
	CHECK(take(&p, &a));
	CHECK(take(&p, &a_port));
	CHECK(take(&p, &a_mapped));
	CHECK(!take(&p, &a));
	CHECK(!take(&p, &a_mapped));
	CHECK(take(&p, &other));
	CHECK_EQ(net_peers_count(&p, &a_port), 3);
	net_peers_give(&p, &a_mapped);
	CHECK_EQ(net_peers_count(&p, &a), 2);
	net_peers_fini(&p);
}

/* An address's account is one for all its connections (IPv4-mapped or not), another
 * address's differs, and a reference keeps it after the address left the table: the
 * address coming back gets a new one. */
static void test_account_per_address(void)
{
	struct sockaddr_storage a = v4(0x7f000001, 700), a6 = v6("::ffff:127.0.0.1", 9),
				b = v4(0x7f000002, 700);
	struct net_acct *x, *y, *z;
	struct net_peers p;

	CHECK_EQ(net_peers_init(&p, 64, 3), 0);
	CHECK(net_peers_acct(&p, &a) == NULL); /* not counted */
	x = net_peers_take(&p, &a);
	y = net_peers_take(&p, &a6);
	z = net_peers_take(&p, &b);
	CHECK(x != NULL && x == y && z != NULL && z != x);
	CHECK(net_peers_acct(&p, &a6) == x); /* the lookup finds what the take gave */
	net_acct_put(x);
	atomic_store(&x->held, 4096);
	net_acct_put(y);
	net_peers_give(&p, &a);
	net_peers_give(&p, &a6); /* a leaves the table; x lives on for its reference */
	CHECK_EQ(net_peers_count(&p, &a), 0);
	CHECK_EQ(atomic_load(&x->held), 4096);
	y = net_peers_take(&p, &a);
	CHECK(y != NULL && y != x);
	CHECK_EQ(atomic_load(&y->held), 0);
	net_acct_put(x);
	net_acct_put(y);
	net_acct_put(z);
	net_peers_fini(&p); /* frees the accounts of a and b, still in the table */
}

#define RUN_ADDRS 700 /* more addresses than the table holds at once */
#define RUN_CONNS 512 /* the server's connection limit */

/* A long random run: the table agrees with a plain array at every step, with up to
 * RUN_CONNS connections over many addresses coming and going. */
static void test_random_run_matches_model(void)
{
	static uint32_t model[RUN_ADDRS];
	static struct net_acct *acct[RUN_ADDRS]; /* each address's, once seen */
	uint32_t total = 0, limit = 4, seed = 12345;
	struct net_peers p;
	int bad = 0;

	CHECK_EQ(net_peers_init(&p, RUN_CONNS, limit), 0);
	for (int step = 0; step < 400000; step++) {
		uint32_t i, r;
		struct sockaddr_storage ss;

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		i = r % RUN_ADDRS;
		ss = v4(0xc0a80000u + i, (uint16_t)r);
		if ((r >> 12) % 2 && total < RUN_CONNS) {
			bool ok = take(&p, &ss);

			bad += ok != (model[i] < limit);
			if (ok) {
				model[i]++;
				total++;
			}
		} else if (model[i]) {
			net_peers_give(&p, &ss);
			if (--model[i] == 0)
				acct[i] = NULL;
			total--;
		}
		if (step % 997 == 0) {
			for (uint32_t k = 0; k < RUN_ADDRS; k++) {
				struct sockaddr_storage q = v4(0xc0a80000u + k, 1);
				struct net_acct *a = net_peers_acct(&p, &q);

				bad += net_peers_count(&p, &q) != model[k];
				bad += (a != NULL) != (model[k] != 0);
				if (a && !acct[k]) { /* first seen: mark it as k's */
					acct[k] = a;
					atomic_store(&a->held, k + 1);
				}
				bad += a && (a != acct[k] || atomic_load(&a->held) != k + 1);
				net_acct_put(a);
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(total > RUN_CONNS / 2); /* the run kept the table well filled */
	net_peers_fini(&p);
}

TESTS(test_limit_per_address, test_address_is_the_client, test_account_per_address,
      test_random_run_matches_model);
