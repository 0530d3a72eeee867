/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of the stable-write log's batches.
 *
 * Uses the SSE4.2 crc32 instruction where the CPU has it and a table otherwise; both
 * give the same result (checked by the unit test against the RFC 3720 vectors).
 */
#ifndef SHOAL_CRC32C_H
#define SHOAL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of @len bytes at @data, continuing from @crc (0 to start). */
uint32_t crc32c(uint32_t crc, const void *data, size_t len);

#endif
