/* Fischer clock arithmetic and the configuration table. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "srv_clock.h"
#include "srv_config.h"

static void test_clock(void) {
  srv_clock c;
  srv_clock_init(&c, 5000, 1000);
  CHECK_INT(srv_clock_until_flag(&c, 0), -1);
  srv_clock_start(&c, 0, 100);
  CHECK_INT(srv_clock_left(&c, 0, 1100), 4000);
  CHECK_INT(srv_clock_left(&c, 1, 1100), 5000);
  CHECK(!srv_clock_flagged(&c, 5099));
  CHECK(srv_clock_flagged(&c, 5100));
  srv_clock_moved(&c, 1, 2100); /* South used 2000, gets 1000 back. */
  CHECK_INT(c.left_ms[0], 4000);
  CHECK_INT(c.running, 1);
  CHECK_INT(srv_clock_until_flag(&c, 2600), 4500);
  srv_clock_moved(&c, 1, 3100); /* An extra turn: the same seat again, with its increment. */
  CHECK_INT(srv_clock_left(&c, 1, 3100), 5000);
  srv_clock_stop(&c, 9000);
  CHECK_INT(c.running, -1);
  CHECK_INT(srv_clock_left(&c, 1, 99999), 0);
}

static int load(srv_config *cfg, const char *args) {
  char buf[512];
  char *argv[32] = {"mancala-server"};
  int argc = 1;
  snprintf(buf, sizeof buf, "%s", args);
  for (char *t = strtok(buf, " "); t != NULL && argc < 31; t = strtok(NULL, " "))
    argv[argc++] = t;
  srv_config_defaults(cfg);
  FILE *sink = fopen("/dev/null", "w");
  int rc = srv_config_load(cfg, argc, argv, sink);
  fclose(sink);
  return rc;
}

static void test_config(void) {
  srv_config cfg;
  CHECK_INT(load(&cfg, ""), 0);
  CHECK_INT(cfg.port, 8080);
  CHECK_STR(cfg.bind, "0.0.0.0");
  CHECK_STR(cfg.data, "./data");
  CHECK_INT(cfg.abandon_ms, 60000);
  CHECK_INT(cfg.log_level, SRV_LOG_INFO);
  CHECK_INT(load(&cfg, "--port 0 --bind=127.0.0.1 --log-level debug --abandon-ms 1500"), 0);
  CHECK_INT(cfg.port, 0);
  CHECK_STR(cfg.bind, "127.0.0.1");
  CHECK_INT(cfg.log_level, SRV_LOG_DEBUG);
  CHECK_INT(cfg.abandon_ms, 1500);
  CHECK_INT(load(&cfg, "--help"), 1);
  CHECK_INT(load(&cfg, "--port 65536"), -1);
  CHECK_INT(load(&cfg, "--port -1"), -1);
  CHECK_INT(load(&cfg, "--port 80x"), -1);
  CHECK_INT(load(&cfg, "--port"), -1);
  CHECK_INT(load(&cfg, "--log-level loud"), -1);
  CHECK_INT(load(&cfg, "--frobnicate 1"), -1);
  CHECK_INT(load(&cfg, "stray"), -1);
  CHECK_INT(load(&cfg, "--ping-s 30 --hangup-s 30"), -1);
  CHECK_STR(cfg.trust_proxy, "127.0.0.1,::1");
  CHECK_INT(load(&cfg, "--trust-proxy 10.0.0.0/8,fd00::/8"), 0);
  CHECK_INT(load(&cfg, "--trust-proxy none"), 0);
  CHECK_INT(load(&cfg, "--trust-proxy 10.0.0.0/99"), -1);
  setenv("MANCALA_PORT", "9000", 1);
  CHECK_INT(load(&cfg, ""), 0);
  CHECK_INT(cfg.port, 9000);
  CHECK_INT(load(&cfg, "--port 9001"), 0); /* A flag wins over the environment. */
  CHECK_INT(cfg.port, 9001);
  setenv("MANCALA_PORT", "nine", 1);
  CHECK_INT(load(&cfg, ""), -1);
  unsetenv("MANCALA_PORT");
}

int main(void) {
  test_clock();
  test_config();
  return check_exit("server.clock_config");
}
