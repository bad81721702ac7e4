/* core/base/crc32c.c -- CRC32C (Castagnoli), slicing-by-8 table implementation.
 * Reflected polynomial 0x82F63B78; check value crc32c("123456789") = 0xE3069283. */
#include <pthread.h>
#include "gnnref/crc32c.h"

static uint32_t k_table[8][256];
static pthread_once_t k_once = PTHREAD_ONCE_INIT;

static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        k_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            k_table[t][i] = (k_table[t - 1][i] >> 8) ^ k_table[0][k_table[t - 1][i] & 0xff];
}

uint32_t gnn_crc32c(uint32_t crc, const void *buf, size_t n)
{
    pthread_once(&k_once, crc32c_init);
    const unsigned char *p = buf;
    crc = ~crc;
    while (n >= 8) {
        /* little-endian assembly of 8 bytes, independent of host alignment */
        uint32_t lo = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        lo ^= crc;
        crc = k_table[7][lo & 0xff] ^ k_table[6][(lo >> 8) & 0xff] ^ k_table[5][(lo >> 16) & 0xff] ^
              k_table[4][lo >> 24] ^ k_table[3][hi & 0xff] ^ k_table[2][(hi >> 8) & 0xff] ^
              k_table[1][(hi >> 16) & 0xff] ^ k_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = (crc >> 8) ^ k_table[0][(crc ^ *p++) & 0xff];
    return ~crc;
}
