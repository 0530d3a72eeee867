/*
 * siphash.h - SipHash-2-4 (Aumasson and Bernstein), a keyed 64-bit PRF.
 *
 * Used as the MAC that authenticates file handles and as the hash of tables whose
 * keys come from the network (the duplicate request cache), where an unkeyed hash
 * would let a client choose collisions.
 */
#ifndef SHOAL_SIPHASH_H
#define SHOAL_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t siphash24(const uint8_t key[16], const void *data, size_t len);

#endif
