/* Trusted proxies and the address a connection is counted under. */
#include <string.h>

#include "check.h"
#include "srv_addr.h"

static const char *client(const srv_addr_list *l, const char *peer, const char *xff) {
  static char out[64];
  srv_addr_client(l, peer, xff, out, sizeof out);
  return out;
}

int main(void) {
  srv_addr_list l;
  CHECK_INT(srv_addr_list_parse("127.0.0.1,::1", &l), 0);
  CHECK_INT(l.n, 2);
  CHECK(srv_addr_list_match(&l, "127.0.0.1"));
  CHECK(srv_addr_list_match(&l, "::ffff:127.0.0.1"));
  CHECK(srv_addr_list_match(&l, "::1"));
  CHECK(!srv_addr_list_match(&l, "127.0.0.2"));
  CHECK(!srv_addr_list_match(&l, "garbage"));
  CHECK_INT(srv_addr_list_parse(" 10.0.0.0/8 , 172.16.0.0/12,fd00::/8 ", &l), 0);
  CHECK_INT(l.n, 3);
  CHECK(srv_addr_list_match(&l, "10.255.1.2"));
  CHECK(srv_addr_list_match(&l, "172.31.255.255"));
  CHECK(!srv_addr_list_match(&l, "172.32.0.1"));
  CHECK(srv_addr_list_match(&l, "fd12:3456::1"));
  CHECK(!srv_addr_list_match(&l, "fe80::1"));
  CHECK_INT(srv_addr_list_parse("0.0.0.0/0", &l), 0);
  CHECK(srv_addr_list_match(&l, "8.8.8.8"));
  CHECK_INT(srv_addr_list_parse("none", &l), 0);
  CHECK_INT(l.n, 0);
  CHECK_INT(srv_addr_list_parse("10.0.0.0/33", &l), -1);
  CHECK_INT(srv_addr_list_parse("10.0.0/8", &l), -1);
  CHECK_INT(srv_addr_list_parse("localhost", &l), -1);
  CHECK_INT(srv_addr_list_parse("1.2.3.4/", &l), -1);

  CHECK_INT(srv_addr_list_parse("127.0.0.1,10.0.0.0/8", &l), 0);
  /* Not from a trusted proxy: the header is ignored. */
  CHECK_STR(client(&l, "203.0.113.9", "198.51.100.1"), "203.0.113.9");
  CHECK_STR(client(&l, "::ffff:203.0.113.9", NULL), "203.0.113.9");
  /* From the proxy: the right-most address that is not a trusted proxy. */
  CHECK_STR(client(&l, "127.0.0.1", "198.51.100.1"), "198.51.100.1");
  CHECK_STR(client(&l, "127.0.0.1", "6.6.6.6, 198.51.100.1"), "198.51.100.1");
  CHECK_STR(client(&l, "127.0.0.1", "198.51.100.1, 10.1.2.3"), "198.51.100.1");
  CHECK_STR(client(&l, "127.0.0.1", " 2001:db8::7 "), "2001:db8::7");
  CHECK_STR(client(&l, "127.0.0.1", "10.1.2.3"), "10.1.2.3");
  CHECK_STR(client(&l, "127.0.0.1", "not-an-address"), "127.0.0.1");
  CHECK_STR(client(&l, "127.0.0.1", NULL), "127.0.0.1");
  return check_exit("server.addr");
}
