/* include/gnnref/crc32c.h -- CRC32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78).
 * Used for every section of the binary format (DESIGN.md section 5) and every simulated message.
 * Check value: gnn_crc32c(0, "123456789", 9) == 0xE3069283. */
#ifndef GNNREF_CRC32C_H
#define GNNREF_CRC32C_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Incremental: crc = gnn_crc32c(crc, buf, n) continues a running checksum; start with 0. */
uint32_t gnn_crc32c(uint32_t crc, const void *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
