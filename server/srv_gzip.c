/* gzip and deflate, compressing only (see srv_gzip.h). The format references are RFC 1951
 * (deflate) and RFC 1952 (gzip); the section numbers below are RFC 1951's. */
#include "srv_gzip.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "srv_error.h"

#define WSIZE 32768 /* The window: matches reach at most WSIZE - 1 bytes back here. */
#define WMASK (WSIZE - 1)
#define HBITS 15
#define HSIZE (1u << HBITS)
#define MIN_MATCH 3
#define MAX_MATCH 258
#define MAX_CHAIN 256    /* Positions tried per search. */
#define LAZY_BELOW 64    /* A match shorter than this is compared with the next position's. */
#define TOO_FAR 4096     /* A 3-byte match farther than this costs more than three literals. */
#define BLOCK_SYMS 16384 /* Symbols per block: each block gets codes for its own statistics. */
#define NLIT 286         /* Literal/length alphabet: 0..255, end of block 256, lengths 257..285. */
#define NDIST 30
#define NCLEN 19
#define MAX_BITS 15
#define MAX_CLEN_BITS 7

/* ---- Bits, least significant first (3.1.1) --------------------------------------------------- */

typedef struct bits {
  unsigned char *buf;
  size_t len, cap;
  uint64_t acc; /* Bits not yet written, the first in the lowest place. */
  int n;        /* How many. */
  bool failed;  /* Memory ran out: everything after is ignored. */
} bits;

static void put_byte(bits *w, unsigned char b) {
  if (w->failed)
    return;
  if (w->len == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 4096;
    unsigned char *p = realloc(w->buf, cap);
    if (p == NULL) {
      w->failed = true;
      return;
    }
    w->buf = p;
    w->cap = cap;
  }
  w->buf[w->len++] = b;
}

/* Appends the n (0..32) low bits of v. */
static void put_bits(bits *w, uint32_t v, int n) {
  w->acc |= (uint64_t)v << w->n;
  w->n += n;
  while (w->n >= 8) {
    put_byte(w, (unsigned char)w->acc);
    w->acc >>= 8;
    w->n -= 8;
  }
}

/* Pads the last byte with zero bits. */
static void flush_bits(bits *w) {
  if (w->n > 0)
    put_byte(w, (unsigned char)w->acc);
  w->acc = 0;
  w->n = 0;
}

static void put_le32(bits *w, uint32_t v) {
  for (int i = 0; i < 4; i++)
    put_byte(w, (unsigned char)(v >> (8 * i)));
}

/* ---- CRC-32 ---------------------------------------------------------------------------------- */

uint32_t srv_gzip_crc32(uint32_t crc, const unsigned char *p, size_t len) {
  static uint32_t table[256];
  static bool ready = false;
  if (!ready) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = true;
  }
  crc = ~crc;
  for (size_t i = 0; i < len; i++)
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/* ---- Huffman codes (3.2.2) ------------------------------------------------------------------- */

/* Code lengths for the n symbols of freq (0: unused; at least two used) into len, none longer
 * than limit: a Huffman tree, built again from flattened frequencies while it is too deep (equal
 * frequencies give a balanced tree, so this ends). A real tree keeps the code complete. */
static void huff_lengths(const uint32_t *freq_in, int n, int limit, uint8_t *len) {
  uint32_t freq[NLIT];
  memcpy(freq, freq_in, (size_t)n * sizeof *freq);
  for (;;) {
    uint64_t weight[2 * NLIT];
    int parent[2 * NLIT], active[NLIT], nactive = 0, nodes = n;
    for (int i = 0; i < n; i++) {
      weight[i] = freq[i];
      parent[i] = -1;
      if (freq[i] > 0)
        active[nactive++] = i;
    }
    while (nactive > 1) {
      /* The two lightest nodes (the first found on ties, so the result is deterministic). */
      int a = 0, b = 1;
      if (weight[active[b]] < weight[active[a]])
        a = 1, b = 0;
      for (int k = 2; k < nactive; k++) {
        if (weight[active[k]] < weight[active[a]])
          b = a, a = k;
        else if (weight[active[k]] < weight[active[b]])
          b = k;
      }
      int node = nodes++;
      weight[node] = weight[active[a]] + weight[active[b]];
      parent[node] = -1;
      parent[active[a]] = parent[active[b]] = node;
      /* The new node takes a's place; b's place takes the last one. */
      int hi = a > b ? a : b, lo = a > b ? b : a;
      active[lo] = node;
      active[hi] = active[--nactive];
    }
    int max = 0;
    for (int i = 0; i < n; i++) {
      int d = 0;
      for (int p = parent[i]; p >= 0; p = parent[p])
        d++;
      len[i] = (uint8_t)(freq[i] ? d : 0);
      if (d > max && freq[i])
        max = d;
    }
    if (max <= limit)
      return;
    for (int i = 0; i < n; i++) {
      if (freq[i] > 0)
        freq[i] = (freq[i] >> 1) | 1;
    }
  }
}

/* The canonical codes of the lengths (3.2.2), bit-reversed for writing least significant first. */
static void huff_codes(const uint8_t *len, int n, uint16_t *code) {
  int count[MAX_BITS + 1] = {0};
  uint32_t next[MAX_BITS + 2];
  for (int i = 0; i < n; i++)
    count[len[i]]++;
  count[0] = 0;
  uint32_t c = 0;
  for (int b = 1; b <= MAX_BITS; b++) {
    c = (c + (uint32_t)count[b - 1]) << 1;
    next[b] = c;
  }
  for (int i = 0; i < n; i++) {
    if (len[i] == 0) {
      code[i] = 0;
      continue;
    }
    uint32_t v = next[len[i]]++, r = 0;
    for (int k = 0; k < len[i]; k++)
      r |= ((v >> k) & 1) << (len[i] - 1 - k);
    code[i] = (uint16_t)r;
  }
}

/* Makes sure at least two symbols are used, so that every code has two leaves and is complete. */
static void two_used(uint32_t *freq, int n) {
  int used = 0;
  for (int i = 0; i < n; i++)
    used += freq[i] > 0;
  for (int i = 0; used < 2 && i < n; i++) {
    if (freq[i] == 0) {
      freq[i] = 1;
      used++;
    }
  }
}

/* ---- Lengths and distances (3.2.5) ----------------------------------------------------------- */

static const uint16_t len_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int len_code(int len) {
  int i = 28;
  while (len_base[i] > len)
    i--;
  return i;
}

static int dist_code(int dist) {
  int i = 29;
  while (dist_base[i] > dist)
    i--;
  return i;
}

/* ---- Blocks with dynamic codes (3.2.7) ------------------------------------------------------- */

/* One LZ77 symbol: a literal (dist 0, lit the byte) or a match (lit its length, dist). */
typedef struct sym {
  uint16_t lit;
  uint16_t dist;
} sym;

/* The order in which the code-length code's lengths are written. */
static const uint8_t clen_order[NCLEN] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                          11, 4,  12, 3, 13, 2, 14, 1, 15};

/* One symbol of the run-length coded code lengths, with its repeat count's extra bits. */
typedef struct rle {
  uint8_t sym, extra;
} rle;

/* Run-length codes the n code lengths of len into out (at most n items); returns their number. */
static int rle_lengths(const uint8_t *len, int n, rle *out) {
  int k = 0;
  for (int i = 0; i < n;) {
    int v = len[i], run = 1;
    while (i + run < n && len[i + run] == v)
      run++;
    i += run;
    if (v == 0) {
      while (run >= 11) {
        int r = run < 138 ? run : 138;
        out[k++] = (rle){18, (uint8_t)(r - 11)};
        run -= r;
      }
      if (run >= 3) {
        out[k++] = (rle){17, (uint8_t)(run - 3)};
        run = 0;
      }
    } else {
      out[k++] = (rle){(uint8_t)v, 0};
      run--;
      while (run >= 3) {
        int r = run < 6 ? run : 6;
        out[k++] = (rle){16, (uint8_t)(r - 3)};
        run -= r;
      }
    }
    while (run-- > 0)
      out[k++] = (rle){(uint8_t)v, 0};
  }
  return k;
}

static void write_block(bits *w, const sym *s, size_t ns, bool final) {
  uint32_t lf[NLIT] = {0}, df[NDIST] = {0}, cf[NCLEN] = {0};
  for (size_t i = 0; i < ns; i++) {
    if (s[i].dist == 0) {
      lf[s[i].lit]++;
    } else {
      lf[257 + len_code(s[i].lit)]++;
      df[dist_code(s[i].dist)]++;
    }
  }
  lf[256]++;
  two_used(lf, NLIT);
  two_used(df, NDIST);
  uint8_t ll[NLIT], dl[NDIST], cl[NCLEN];
  uint16_t lc[NLIT], dc[NDIST], cc[NCLEN];
  huff_lengths(lf, NLIT, MAX_BITS, ll);
  huff_lengths(df, NDIST, MAX_BITS, dl);
  int nlit = NLIT, ndist = NDIST;
  while (nlit > 257 && ll[nlit - 1] == 0)
    nlit--;
  while (ndist > 1 && dl[ndist - 1] == 0)
    ndist--;
  /* Both codes' lengths as one sequence (runs may cross from one to the other, 3.2.7). */
  uint8_t all[NLIT + NDIST];
  memcpy(all, ll, (size_t)nlit);
  memcpy(all + nlit, dl, (size_t)ndist);
  rle items[NLIT + NDIST];
  int nitems = rle_lengths(all, nlit + ndist, items);
  for (int i = 0; i < nitems; i++)
    cf[items[i].sym]++;
  two_used(cf, NCLEN);
  huff_lengths(cf, NCLEN, MAX_CLEN_BITS, cl);
  int nclen = NCLEN;
  while (nclen > 4 && cl[clen_order[nclen - 1]] == 0)
    nclen--;
  huff_codes(ll, NLIT, lc);
  huff_codes(dl, NDIST, dc);
  huff_codes(cl, NCLEN, cc);

  put_bits(w, final ? 1 : 0, 1);
  put_bits(w, 2, 2); /* BTYPE 10: dynamic Huffman codes. */
  put_bits(w, (uint32_t)(nlit - 257), 5);
  put_bits(w, (uint32_t)(ndist - 1), 5);
  put_bits(w, (uint32_t)(nclen - 4), 4);
  for (int i = 0; i < nclen; i++)
    put_bits(w, cl[clen_order[i]], 3);
  for (int i = 0; i < nitems; i++) {
    put_bits(w, cc[items[i].sym], cl[items[i].sym]);
    if (items[i].sym == 16)
      put_bits(w, items[i].extra, 2);
    else if (items[i].sym == 17)
      put_bits(w, items[i].extra, 3);
    else if (items[i].sym == 18)
      put_bits(w, items[i].extra, 7);
  }
  for (size_t i = 0; i < ns; i++) {
    if (s[i].dist == 0) {
      put_bits(w, lc[s[i].lit], ll[s[i].lit]);
      continue;
    }
    int l = len_code(s[i].lit), d = dist_code(s[i].dist);
    put_bits(w, lc[257 + l], ll[257 + l]);
    put_bits(w, (uint32_t)(s[i].lit - len_base[l]), len_extra[l]);
    put_bits(w, dc[d], dl[d]);
    put_bits(w, (uint32_t)(s[i].dist - dist_base[d]), dist_extra[d]);
  }
  put_bits(w, lc[256], ll[256]);
}

/* ---- LZ77 ------------------------------------------------------------------------------------ */

typedef struct lz {
  const unsigned char *in;
  size_t n;
  int32_t *head; /* HSIZE: the newest position of each hash, -1: none. */
  int32_t *prev; /* WSIZE: the position before each one with the same hash. */
} lz;

static uint32_t hash3(const unsigned char *p) {
  return (((uint32_t)p[0] << 10) ^ ((uint32_t)p[1] << 5) ^ p[2]) & (HSIZE - 1);
}

static void insert(lz *z, size_t i) {
  if (i + MIN_MATCH > z->n)
    return;
  uint32_t h = hash3(z->in + i);
  z->prev[i & WMASK] = z->head[h];
  z->head[h] = (int32_t)i;
}

/* The longest earlier match of the bytes at i (not inserted yet): its length (0 when under
 * MIN_MATCH or not worth it) and *dist. */
static int longest(const lz *z, size_t i, int *dist) {
  if (i + MIN_MATCH > z->n)
    return 0;
  size_t max = z->n - i < MAX_MATCH ? z->n - i : MAX_MATCH;
  int best = 0, chain = MAX_CHAIN;
  int32_t p = z->head[hash3(z->in + i)];
  while (p >= 0 && i - (size_t)p < WSIZE && chain-- > 0) {
    const unsigned char *a = z->in + p, *b = z->in + i;
    size_t len = 0;
    while (len < max && a[len] == b[len])
      len++;
    if ((int)len > best) {
      best = (int)len;
      *dist = (int)(i - (size_t)p);
      if (len == max)
        break;
    }
    int32_t q = z->prev[p & WMASK];
    if (q >= p)
      break; /* The slot was reused by a newer position: the chain ends here. */
    p = q;
  }
  if (best < MIN_MATCH || (best == MIN_MATCH && *dist > TOO_FAR))
    return 0;
  return best;
}

int srv_gzip(const unsigned char *in, size_t len, unsigned char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  if (len > INT32_MAX)
    return SRV_ENOMEM; /* Positions are 32-bit: far beyond any file of the web client. */
  lz z = {in, len, malloc(HSIZE * sizeof(int32_t)), malloc(WSIZE * sizeof(int32_t))};
  sym *syms = malloc(BLOCK_SYMS * sizeof *syms);
  bits w = {0};
  if (z.head == NULL || z.prev == NULL || syms == NULL) {
    free(z.head);
    free(z.prev);
    free(syms);
    return SRV_ENOMEM;
  }
  memset(z.head, 0xff, HSIZE * sizeof(int32_t));
  /* The gzip header (RFC 1952, 2.3): deflate, no flags, no time, OS Unix. */
  static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  for (size_t k = 0; k < sizeof header; k++)
    put_byte(&w, header[k]);
  size_t ns = 0;
  for (size_t i = 0; i < len;) {
    int dist = 0, best = longest(&z, i, &dist);
    insert(&z, i);
    if (best > 0 && best < LAZY_BELOW) {
      /* Lazy matching: a longer match one byte later wins; this byte goes as a literal. */
      int dist2 = 0, next = longest(&z, i + 1, &dist2);
      if (next > best)
        best = 0;
    }
    if (best > 0) {
      syms[ns++] = (sym){(uint16_t)best, (uint16_t)dist};
      for (size_t k = 1; k < (size_t)best; k++)
        insert(&z, i + k);
      i += (size_t)best;
    } else {
      syms[ns++] = (sym){in[i], 0};
      i++;
    }
    if (ns == BLOCK_SYMS && i < len) {
      write_block(&w, syms, ns, false);
      ns = 0;
    }
  }
  write_block(&w, syms, ns, true);
  flush_bits(&w);
  put_le32(&w, srv_gzip_crc32(0, in, len));
  put_le32(&w, (uint32_t)len);
  free(z.head);
  free(z.prev);
  free(syms);
  if (w.failed) {
    free(w.buf);
    return SRV_ENOMEM;
  }
  *out = w.buf;
  *out_len = w.len;
  return 0;
}
