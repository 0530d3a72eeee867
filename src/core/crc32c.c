/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82f63b78).
 *
 * The stable-write log checksums every batch it writes, up to megabytes a second of
 * client data, so the x86-64 crc32 instruction is used when the CPU has SSE4.2 (chosen
 * once, at the first call). The portable path is a byte-at-a-time table.
 */
#include "core/crc32c.h"

#include <stdbool.h>
#include <string.h>

#define POLY 0x82f63b78u

static uint32_t table[256];
static bool table_ready;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[i] = c;
	}
	table_ready = true;
}

static uint32_t crc_table(uint32_t crc, const uint8_t *p, size_t len)
{
	if (!table_ready)
		make_table(); /* idempotent: racing threads write the same values */
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *p,
							    size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

uint32_t crc32c(uint32_t crc, const void *data, size_t len)
{
	crc = ~crc;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc_sse42(crc, data, len);
#endif
	return ~crc_table(crc, data, len);
}
