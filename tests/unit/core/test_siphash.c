/*
 * test_siphash.c - SipHash-2-4 against the reference vectors of the paper
 * (key 00..0f, message 00..len-1).
 */
#include "core/siphash.h"
#include "unit/test.h"

static void test_reference_vectors(void)
{
	uint8_t key[16], msg[64];

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	CHECK(siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
	CHECK(siphash24(key, msg, 1) == 0x74f839c593dc67fdULL);
	CHECK(siphash24(key, msg, 8) == 0x93f5f5799a932462ULL);
	CHECK(siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL);
	CHECK(siphash24(key, msg, 63) == 0x958a324ceb064572ULL);
}

static void test_key_changes_result(void)
{
	uint8_t k1[16] = {0}, k2[16] = {1};

	CHECK(siphash24(k1, "handle", 6) != siphash24(k2, "handle", 6));
}

TESTS(test_reference_vectors, test_key_changes_result)
