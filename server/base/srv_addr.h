/* Client addresses: which peers are trusted reverse proxies, and the address a connection is
 * counted under (connection limits, logs).
 *
 * Behind a proxy (the shipped nginx configuration) every connection comes from the proxy; the
 * proxy names the real client in X-Forwarded-For. That header is believed only from the trusted
 * proxies of the list (--trust-proxy): the client is the right-most address that is not itself a
 * trusted proxy. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are treated as IPv4.
 */
#ifndef SRV_ADDR_H
#define SRV_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_cidr {
  int family;       /* 4 or 6 */
  uint8_t addr[16]; /* Network byte order; 4 bytes used for IPv4. */
  int bits;         /* Prefix length. */
} srv_cidr;

#define SRV_ADDR_MAX 32

typedef struct srv_addr_list {
  srv_cidr items[SRV_ADDR_MAX];
  size_t n;
} srv_addr_list;

/* Parses a comma-separated list of addresses and CIDR blocks ("127.0.0.1,::1,10.0.0.0/8"; spaces
 * allowed; "" or "none" is the empty list) into *out. Returns 0, or -1 (out untouched) for a bad
 * entry or more than SRV_ADDR_MAX of them. */
int srv_addr_list_parse(const char *text, srv_addr_list *out);

/* Returns true when the address text ip is in one of the list's blocks. */
bool srv_addr_list_match(const srv_addr_list *list, const char *ip);

/* Writes into out (size bytes) the address a connection from peer is counted under: peer itself,
 * or, when peer is a trusted proxy and xff (may be NULL) is present, the right-most address of xff
 * that is not a trusted proxy. IPv4-mapped addresses are written as IPv4. */
void srv_addr_client(const srv_addr_list *trusted, const char *peer, const char *xff, char *out,
                     size_t size);

/* Writes into out (size bytes) the key a client address (the text srv_addr_client() wrote) is
 * counted under by the per-address limits: an IPv4 address itself; for an IPv6 address its /64
 * network ("2001:db8:1:2::/64"), since one subscriber usually holds a whole /64 and could
 * otherwise count as millions of addresses. Unparsable text is its own key. */
void srv_addr_key(const char *ip, char *out, size_t size);

/* Writes into out (size bytes) the wider group a client address or address key (what
 * srv_addr_key() wrote) belongs to, for what one party must share with its neighbours (the
 * password-check queue and login limits, srv_account.h): an IPv4 address itself, an IPv6 address
 * its /48 ("2001:db8:1::/48": a site, often all one subscriber's). Unparsable text is its own
 * group. */
void srv_addr_group(const char *key, char *out, size_t size);

#endif
