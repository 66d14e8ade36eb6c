/* gzip (RFC 1952) around deflate (RFC 1951), compressing only: the web client's text files are
 * compressed once in memory when they are first served (srv_static.h), so that the server needs no
 * build step and no library beyond those it already links.
 *
 * The compressor is LZ77 over the 32 KiB window with hash chains and one step of lazy matching
 * (gzip's own method), and every block coded with its own dynamic Huffman codes, lengths limited
 * to 15 bits (7 for the code-length code). It is meant for files of a few hundred KiB at most:
 * it works in memory, in one call, and trades speed for a simple, checkable implementation.
 */
#ifndef SRV_GZIP_H
#define SRV_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* Compresses the len bytes at in (borrowed; NULL allowed when len is 0) into a new gzip member:
 * *out (free() it) of *out_len bytes. Returns 0, or SRV_ENOMEM (then *out is NULL). */
int srv_gzip(const unsigned char *in, size_t len, unsigned char **out, size_t *out_len);

/* The CRC-32 of the gzip trailer (ISO 3309, the one zlib's crc32() computes) of len bytes at p,
 * continuing from crc (0 to start). */
uint32_t srv_gzip_crc32(uint32_t crc, const unsigned char *p, size_t len);

#endif
