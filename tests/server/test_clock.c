/* Fischer clock arithmetic and the configuration table. */
#include <stdio.h>
#include <string.h>

#include "srv_clock.h"
#include "srv_config.h"
#include "task.h"

TEST_IMPL(clock) {
  srv_clock c;
  srv_clock_init(&c, 5000, 1000);
  ASSERT_EQ(srv_clock_until_flag(&c, 0), -1);
  srv_clock_start(&c, 0, 100);
  ASSERT_EQ(srv_clock_left(&c, 0, 1100), 4000);
  ASSERT_EQ(srv_clock_left(&c, 1, 1100), 5000);
  ASSERT(!srv_clock_flagged(&c, 5099));
  ASSERT(srv_clock_flagged(&c, 5100));
  srv_clock_moved(&c, 1, 2100); /* South used 2000, gets 1000 back. */
  ASSERT_EQ(c.left_ms[0], 4000);
  ASSERT_EQ(c.running, 1);
  ASSERT_EQ(srv_clock_until_flag(&c, 2600), 4500);
  srv_clock_moved(&c, 1, 3100); /* An extra turn: the same seat again, with its increment. */
  ASSERT_EQ(srv_clock_left(&c, 1, 3100), 5000);
  srv_clock_stop(&c, 9000);
  ASSERT_EQ(c.running, -1);
  ASSERT_EQ(srv_clock_left(&c, 1, 99999), 0);
  return 0;
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

TEST_IMPL(config) {
  srv_config cfg;
  ASSERT_EQ(load(&cfg, ""), 0);
  ASSERT_EQ(cfg.port, 8080);
  ASSERT_STR_EQ(cfg.bind, "0.0.0.0");
  ASSERT_STR_EQ(cfg.data, "./data");
  ASSERT_EQ(cfg.abandon_ms, 60000);
  ASSERT_EQ(cfg.log_level, SRV_LOG_INFO);
  ASSERT_EQ(load(&cfg, "--port 0 --bind=127.0.0.1 --log-level debug --abandon-ms 1500"), 0);
  ASSERT_EQ(cfg.port, 0);
  ASSERT_STR_EQ(cfg.bind, "127.0.0.1");
  ASSERT_EQ(cfg.log_level, SRV_LOG_DEBUG);
  ASSERT_EQ(cfg.abandon_ms, 1500);
  ASSERT_EQ(load(&cfg, "--help"), 1);
  ASSERT_EQ(load(&cfg, "--port 65536"), -1);
  ASSERT_EQ(load(&cfg, "--port -1"), -1);
  ASSERT_EQ(load(&cfg, "--port 80x"), -1);
  ASSERT_EQ(load(&cfg, "--port"), -1);
  ASSERT_EQ(load(&cfg, "--log-level loud"), -1);
  ASSERT_EQ(load(&cfg, "--frobnicate 1"), -1);
  ASSERT_EQ(load(&cfg, "stray"), -1);
  ASSERT_EQ(load(&cfg, "--ping-s 30 --hangup-s 30"), -1);
  ASSERT_STR_EQ(cfg.trust_proxy, "none"); /* No proxy is trusted until one is named. */
  ASSERT_EQ(load(&cfg, "--trust-proxy 10.0.0.0/8,fd00::/8"), 0);
  ASSERT_EQ(load(&cfg, "--trust-proxy none"), 0);
  ASSERT_EQ(load(&cfg, "--trust-proxy 10.0.0.0/99"), -1);
  setenv("MANCALA_PORT", "9000", 1);
  ASSERT_EQ(load(&cfg, ""), 0);
  ASSERT_EQ(cfg.port, 9000);
  ASSERT_EQ(load(&cfg, "--port 9001"), 0); /* A flag wins over the environment. */
  ASSERT_EQ(cfg.port, 9001);
  setenv("MANCALA_PORT", "nine", 1);
  ASSERT_EQ(load(&cfg, ""), -1);
  unsetenv("MANCALA_PORT");
  return 0;
}
