/* Trusted proxies and the address a connection is counted under. */
#include <string.h>

#include "srv_addr.h"
#include "task.h"

static const char *client(const srv_addr_list *l, const char *peer, const char *xff) {
  static char out[64];
  srv_addr_client(l, peer, xff, out, sizeof out);
  return out;
}

TEST_IMPL(trusted_proxies) {
  srv_addr_list l;
  ASSERT_EQ(srv_addr_list_parse("127.0.0.1,::1", &l), 0);
  ASSERT_EQ(l.n, 2);
  ASSERT(srv_addr_list_match(&l, "127.0.0.1"));
  ASSERT(srv_addr_list_match(&l, "::ffff:127.0.0.1"));
  ASSERT(srv_addr_list_match(&l, "::1"));
  ASSERT(!srv_addr_list_match(&l, "127.0.0.2"));
  ASSERT(!srv_addr_list_match(&l, "garbage"));
  ASSERT_EQ(srv_addr_list_parse(" 10.0.0.0/8 , 172.16.0.0/12,fd00::/8 ", &l), 0);
  ASSERT_EQ(l.n, 3);
  ASSERT(srv_addr_list_match(&l, "10.255.1.2"));
  ASSERT(srv_addr_list_match(&l, "172.31.255.255"));
  ASSERT(!srv_addr_list_match(&l, "172.32.0.1"));
  ASSERT(srv_addr_list_match(&l, "fd12:3456::1"));
  ASSERT(!srv_addr_list_match(&l, "fe80::1"));
  ASSERT_EQ(srv_addr_list_parse("0.0.0.0/0", &l), 0);
  ASSERT(srv_addr_list_match(&l, "8.8.8.8"));
  ASSERT_EQ(srv_addr_list_parse("none", &l), 0);
  ASSERT_EQ(l.n, 0);
  ASSERT_EQ(srv_addr_list_parse("10.0.0.0/33", &l), -1);
  ASSERT_EQ(srv_addr_list_parse("10.0.0/8", &l), -1);
  ASSERT_EQ(srv_addr_list_parse("localhost", &l), -1);
  ASSERT_EQ(srv_addr_list_parse("1.2.3.4/", &l), -1);

  ASSERT_EQ(srv_addr_list_parse("127.0.0.1,10.0.0.0/8", &l), 0);
  /* Not from a trusted proxy: the header is ignored. */
  ASSERT_STR_EQ(client(&l, "203.0.113.9", "198.51.100.1"), "203.0.113.9");
  ASSERT_STR_EQ(client(&l, "::ffff:203.0.113.9", NULL), "203.0.113.9");
  /* From the proxy: the right-most address that is not a trusted proxy. */
  ASSERT_STR_EQ(client(&l, "127.0.0.1", "198.51.100.1"), "198.51.100.1");
  ASSERT_STR_EQ(client(&l, "127.0.0.1", "6.6.6.6, 198.51.100.1"), "198.51.100.1");
  ASSERT_STR_EQ(client(&l, "127.0.0.1", "198.51.100.1, 10.1.2.3"), "198.51.100.1");
  ASSERT_STR_EQ(client(&l, "127.0.0.1", " 2001:db8::7 "), "2001:db8::7");
  ASSERT_STR_EQ(client(&l, "127.0.0.1", "10.1.2.3"), "10.1.2.3");
  ASSERT_STR_EQ(client(&l, "127.0.0.1", "not-an-address"), "127.0.0.1");
  ASSERT_STR_EQ(client(&l, "127.0.0.1", NULL), "127.0.0.1");
  return 0;
}

static const char *key(const char *ip) {
  static char out[64];
  srv_addr_key(ip, out, sizeof out);
  return out;
}

static int same_key(const char *a, const char *b) {
  char ka[64], kb[64];
  srv_addr_key(a, ka, sizeof ka);
  srv_addr_key(b, kb, sizeof kb);
  return strcmp(ka, kb) == 0;
}

/* Security probe, finding 13: 70 addresses of one IPv6 /64 were counted as 70 clients. An IPv6
 * client is counted by its /64; IPv4 (mapped or not) by its address. */
TEST_IMPL(ipv6_by_64) {
  ASSERT_STR_EQ(key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  ASSERT_STR_EQ(key("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  ASSERT_STR_EQ(key("2001:0db8:0001:0002:0000:0000:0000:0046"), "2001:db8:1:2::/64");
  ASSERT(!same_key("2001:db8:1:3::1", "2001:db8:1:2::1"));
  ASSERT_STR_EQ(key("::1"), "::/64");
  ASSERT_STR_EQ(key("fe80::1:2:3:4"), "fe80::/64");
  /* 70 addresses of one /64: one key. */
  char ip[64], first[64];
  snprintf(first, sizeof first, "%s", key("2001:db8:aa:bb::1"));
  for (int i = 1; i <= 70; i++) {
    snprintf(ip, sizeof ip, "2001:db8:aa:bb:%x:%x::%x", (i * 977) % 0xffff, i, i);
    ASSERT_STR_EQ(key(ip), first);
  }
  ASSERT_STR_EQ(key("203.0.113.9"), "203.0.113.9");
  ASSERT_STR_EQ(key("::ffff:203.0.113.9"), "203.0.113.9");
  ASSERT(!same_key("203.0.113.9", "203.0.113.10"));
  ASSERT_STR_EQ(key("garbage"), "garbage");
  return 0;
}

static const char *group(const char *k) {
  static char out[64];
  srv_addr_group(k, out, sizeof out);
  return out;
}

/* The group of the password-check queue and the login limits (issue 25, item 3): an IPv6 /48,
 * from an address or from a /64 key; IPv4 is its address. */
TEST_IMPL(group_by_48) {
  ASSERT_STR_EQ(group("2001:db8:1:2::/64"), "2001:db8:1::/48");
  ASSERT_STR_EQ(group("2001:db8:1:ffff::/64"), "2001:db8:1::/48");
  ASSERT_STR_EQ(group("2001:db8:1:2:3:4:5:6"), "2001:db8:1::/48");
  ASSERT_STR_EQ(group("2001:db8:2::/64"), "2001:db8:2::/48");
  /* 68 /64s of one /48: one group. */
  for (int i = 0; i < 68; i++) {
    char ip[64];
    snprintf(ip, sizeof ip, "2001:db8:77:%x::1", i * 911);
    ASSERT_STR_EQ(group(key(ip)), "2001:db8:77::/48");
  }
  ASSERT_STR_EQ(group("203.0.113.9"), "203.0.113.9");
  ASSERT_STR_EQ(group(key("::ffff:203.0.113.9")), "203.0.113.9");
  ASSERT_STR_EQ(group("garbage"), "garbage");
  ASSERT_STR_EQ(group(""), "");
  return 0;
}
