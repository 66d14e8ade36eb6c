/* Trusted proxies and client addresses. */
#include "srv_addr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses one address into family and bytes (IPv4-mapped IPv6 becomes IPv4). */
static int parse_ip(const char *text, int *family, uint8_t addr[16]) {
  uint8_t buf[16];
  if (inet_pton(AF_INET, text, buf) == 1) {
    *family = 4;
    memcpy(addr, buf, 4);
    return 0;
  }
  if (inet_pton(AF_INET6, text, buf) == 1) {
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(buf, mapped, 12) == 0) {
      *family = 4;
      memcpy(addr, buf + 12, 4);
    } else {
      *family = 6;
      memcpy(addr, buf, 16);
    }
    return 0;
  }
  return -1;
}

static int parse_entry(const char *text, srv_cidr *out) {
  char ip[64];
  const char *slash = strchr(text, '/');
  size_t len = slash ? (size_t)(slash - text) : strlen(text);
  if (len == 0 || len >= sizeof ip)
    return -1;
  memcpy(ip, text, len);
  ip[len] = '\0';
  if (parse_ip(ip, &out->family, out->addr) != 0)
    return -1;
  int max = out->family == 4 ? 32 : 128;
  out->bits = max;
  if (slash != NULL) {
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    if (slash[1] == '\0' || *end != '\0' || bits < 0 || bits > max)
      return -1;
    out->bits = (int)bits;
  }
  return 0;
}

int srv_addr_list_parse(const char *text, srv_addr_list *out) {
  srv_addr_list list;
  list.n = 0;
  if (strcmp(text, "none") == 0) {
    *out = list;
    return 0;
  }
  const char *p = text;
  while (*p != '\0') {
    while (*p == ' ' || *p == ',')
      p++;
    if (*p == '\0')
      break;
    char entry[80];
    size_t len = strcspn(p, ", ");
    if (len >= sizeof entry || list.n == SRV_ADDR_MAX)
      return -1;
    memcpy(entry, p, len);
    entry[len] = '\0';
    if (parse_entry(entry, &list.items[list.n]) != 0)
      return -1;
    list.n++;
    p += len;
  }
  *out = list;
  return 0;
}

static bool in_block(const srv_cidr *c, int family, const uint8_t addr[16]) {
  if (c->family != family)
    return false;
  int full = c->bits / 8, rest = c->bits % 8;
  if (memcmp(c->addr, addr, (size_t)full) != 0)
    return false;
  if (rest == 0)
    return true;
  uint8_t mask = (uint8_t)(0xff << (8 - rest));
  return (c->addr[full] & mask) == (addr[full] & mask);
}

bool srv_addr_list_match(const srv_addr_list *list, const char *ip) {
  int family;
  uint8_t addr[16];
  if (parse_ip(ip, &family, addr) != 0)
    return false;
  for (size_t i = 0; i < list->n; i++) {
    if (in_block(&list->items[i], family, addr))
      return true;
  }
  return false;
}

/* Writes the canonical text of ip (IPv4-mapped shown as IPv4), or ip itself when unparsable. */
static void canonical(const char *ip, char *out, size_t size) {
  int family;
  uint8_t addr[16];
  char text[INET6_ADDRSTRLEN];
  if (parse_ip(ip, &family, addr) == 0 &&
      inet_ntop(family == 4 ? AF_INET : AF_INET6, addr, text, sizeof text) != NULL)
    snprintf(out, size, "%s", text);
  else
    snprintf(out, size, "%s", ip);
}

void srv_addr_client(const srv_addr_list *trusted, const char *peer, const char *xff, char *out,
                     size_t size) {
  canonical(peer, out, size);
  if (xff == NULL || !srv_addr_list_match(trusted, peer))
    return;
  /* Walk X-Forwarded-For from the right: skip trusted proxies, take the first other address. */
  size_t end = strlen(xff);
  while (end > 0) {
    size_t start = end;
    while (start > 0 && xff[start - 1] != ',')
      start--;
    char entry[64];
    size_t a = start, b = end;
    while (a < b && isspace((unsigned char)xff[a]))
      a++;
    while (b > a && isspace((unsigned char)xff[b - 1]))
      b--;
    if (b > a && b - a < sizeof entry) {
      memcpy(entry, xff + a, b - a);
      entry[b - a] = '\0';
      int family;
      uint8_t addr[16];
      if (parse_ip(entry, &family, addr) != 0)
        return; /* Garbage: keep the proxy's own address. */
      canonical(entry, out, size);
      if (!srv_addr_list_match(trusted, entry))
        return;
    } else if (b > a) {
      return;
    }
    end = start > 0 ? start - 1 : 0;
  }
}

void srv_addr_key(const char *ip, char *out, size_t size) {
  int family;
  uint8_t addr[16];
  char text[INET6_ADDRSTRLEN];
  if (parse_ip(ip, &family, addr) != 0) {
    snprintf(out, size, "%s", ip);
    return;
  }
  if (family == 4) {
    inet_ntop(AF_INET, addr, text, sizeof text);
    snprintf(out, size, "%s", text);
    return;
  }
  memset(addr + 8, 0, 8);
  inet_ntop(AF_INET6, addr, text, sizeof text);
  snprintf(out, size, "%s/64", text);
}

void srv_addr_group(const char *key, char *out, size_t size) {
  char ip[INET6_ADDRSTRLEN + 8];
  size_t len = strcspn(key, "/");
  int family;
  uint8_t addr[16];
  if (len >= sizeof ip) {
    snprintf(out, size, "%s", key);
    return;
  }
  memcpy(ip, key, len);
  ip[len] = '\0';
  if (parse_ip(ip, &family, addr) != 0) {
    snprintf(out, size, "%s", key);
    return;
  }
  char text[INET6_ADDRSTRLEN];
  if (family == 4) {
    inet_ntop(AF_INET, addr, text, sizeof text);
    snprintf(out, size, "%s", text);
    return;
  }
  memset(addr + 6, 0, 10);
  inet_ntop(AF_INET6, addr, text, sizeof text);
  snprintf(out, size, "%s/48", text);
}
