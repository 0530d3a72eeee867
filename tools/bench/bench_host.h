/*
 * bench_host.h - facts about the machine shoal-bench runs on, for the report.
 */
#ifndef SHOAL_BENCH_HOST_H
#define SHOAL_BENCH_HOST_H

#include "bench_result.h"

/*
 * bench_host_detect - fill @run->host_os ("PRETTY_NAME of /etc/os-release, kernel
 * release, machine"), host_cpu (the first "model name" of /proc/cpuinfo), host_cpus
 * (CPUs online) and host_mem_bytes (MemTotal of /proc/meminfo). What cannot be found is
 * left empty or 0; nothing else in @run is touched.
 */
void bench_host_detect(struct bench_run *run);

#endif
