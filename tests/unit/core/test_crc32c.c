/*
 * test_crc32c.c - CRC-32C against the check value and the RFC 3720 (iSCSI) vectors,
 * and chaining: a checksum continued over two pieces equals the one-piece checksum.
 */
#include "core/crc32c.h"
#include "unit/test.h"

static void test_check_value(void)
{
	CHECK(crc32c(0, "123456789", 9) == 0xe3069283u);
	CHECK(crc32c(0, "", 0) == 0);
}

static void test_rfc3720_vectors(void)
{
	uint8_t buf[32];

	memset(buf, 0, sizeof(buf));
	CHECK(crc32c(0, buf, 32) == 0x8a9136aau);
	memset(buf, 0xff, sizeof(buf));
	CHECK(crc32c(0, buf, 32) == 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	CHECK(crc32c(0, buf, 32) == 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	CHECK(crc32c(0, buf, 32) == 0x113fdb5cu);
}

static void test_chaining(void)
{
	uint8_t buf[1000];

	for (int i = 0; i < 1000; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	CHECK(crc32c(crc32c(0, buf, 333), buf + 333, 667) == crc32c(0, buf, 1000));
	/* unaligned starts and tails take the byte path of the fast code */
	CHECK(crc32c(crc32c(0, buf, 5), buf + 5, 995) == crc32c(0, buf, 1000));
}

TESTS(test_check_value, test_rfc3720_vectors, test_chaining)
