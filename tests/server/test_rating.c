/* Ratings: Glicko-2 against the worked example of Glickman's paper, the policy of one rated game
 * (srv_rating.h), and quick pairing's choice among the candidates of a pool (srv_pairing.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "srv_error.h"
#include "srv_glicko.h"
#include "srv_pairing.h"
#include "srv_proto.h"
#include "srv_rating.h"
#include "task.h"

#define ASSERT_NEAR(a, b, eps)                                                                     \
  do {                                                                                             \
    double assert_a_ = (a), assert_b_ = (b);                                                       \
    if (!(fabs(assert_a_ - assert_b_) <= (eps)))                                                   \
      TEST_FAIL_("assertion failed: %s ~ %s (%.7f vs %.7f, tolerance %g)", #a, #b, assert_a_,      \
                 assert_b_, (double)(eps));                                                        \
  } while (0)

/* Mark Glickman, "Example of the Glicko-2 system" (2013), section "Example": a player rated 1500
 * with RD 200 and volatility 0.06 plays three games in a period, against 1400 (RD 30) winning,
 * 1550 (RD 100) losing and 1700 (RD 300) losing, with tau = 0.5. The paper publishes
 * r' = 1464.06, RD' = 151.52, sigma' = 0.05999.
 *
 * The paper rounds every intermediate to four decimals (v = 1.7785, Delta = -0.4834,
 * mu' = -0.2069...), so its last published digit carries that rounding: the same steps in full
 * precision give r' = 1464.0507, RD' = 151.5165, sigma' = 0.0599960 (worked out independently of
 * this code, in Python's floats from the paper's formulas). The test holds the code to both: the
 * paper's numbers to within one unit of the decimals it gives, the full-precision ones to 1e-4. */
TEST_IMPL(glickman_example) {
  srv_glicko player = {1500, 200, 0.06}, out;
  srv_glicko_game games[3] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
  ASSERT_EQ(srv_glicko_rate(&player, games, 3, 0.5, &out), 0);
  ASSERT_NEAR(out.rating, 1464.06, 0.01);
  ASSERT_NEAR(out.rd, 151.52, 0.01);
  ASSERT_NEAR(out.vol, 0.05999, 0.00001);
  ASSERT_NEAR(out.rating, 1464.0507, 1e-4);
  ASSERT_NEAR(out.rd, 151.5165, 1e-4);
  ASSERT_NEAR(out.vol, 0.0599960, 1e-7);
  /* The player itself is untouched, and out may be the player. */
  ASSERT_NEAR(player.rating, 1500, 0);
  ASSERT_EQ(srv_glicko_rate(&player, games, 3, 0.5, &player), 0);
  ASSERT_NEAR(player.rating, 1464.0507, 1e-4);
  return 0;
}

/* A period without games: only the deviation grows, phi' = sqrt(phi^2 + sigma^2). For RD 200:
 * phi = 200 / 173.7178 = 1.151295, phi^2 + 0.06^2 = 1.329080, sqrt = 1.152857, RD' = 200.2714. */
TEST_IMPL(period_without_games) {
  srv_glicko player = {1500, 200, 0.06}, out;
  ASSERT_EQ(srv_glicko_rate(&player, NULL, 0, 0.5, &out), 0);
  ASSERT_NEAR(out.rating, 1500, 0);
  ASSERT_NEAR(out.rd, 200.2714, 1e-4);
  ASSERT_NEAR(out.vol, 0.06, 0);
  /* Ten idle periods from RD 100: sqrt((100 / 173.7178)^2 + 10 * 0.0036) * 173.7178 = 105.2920;
   * the cap holds a deviation at 350. */
  srv_glicko r = {1500, 100, 0.06};
  srv_glicko_idle(&r, 10, 350);
  ASSERT_NEAR(r.rd, 105.2920, 1e-4);
  srv_glicko_idle(&r, 1e9, 350);
  ASSERT_NEAR(r.rd, 350, 0);
  r.rd = 100;
  srv_glicko_idle(&r, 0, 350);
  ASSERT_NEAR(r.rd, 100, 0);
  return 0;
}

TEST_IMPL(bad_arguments) {
  srv_glicko p = {1500, 200, 0.06}, out = {1, 2, 3};
  srv_glicko_game g = {1500, 350, 1};
  srv_glicko_game bad_score = {1500, 350, 1.5}, bad_rd = {1500, 0, 1}, nan_rating = {NAN, 50, 0};
  ASSERT_EQ(srv_glicko_rate(&p, &bad_score, 1, 0.5, &out), -1);
  ASSERT_EQ(srv_glicko_rate(&p, &bad_rd, 1, 0.5, &out), -1);
  ASSERT_EQ(srv_glicko_rate(&p, &nan_rating, 1, 0.5, &out), -1);
  ASSERT_EQ(srv_glicko_rate(&p, &g, 1, 0, &out), -1);
  ASSERT_EQ(srv_glicko_rate(&p, NULL, 1, 0.5, &out), -1);
  srv_glicko zero_rd = {1500, 0, 0.06}, zero_vol = {1500, 200, 0};
  ASSERT_EQ(srv_glicko_rate(&zero_rd, &g, 1, 0.5, &out), -1);
  ASSERT_EQ(srv_glicko_rate(&zero_vol, &g, 1, 0.5, &out), -1);
  /* Untouched on error. */
  ASSERT_NEAR(out.rating, 1, 0);
  ASSERT_NEAR(out.rd, 2, 0);
  return 0;
}

static srv_store_rating fresh(void) {
  srv_store_rating r = {1500, 350, 0.06, 0, 0, 0, 0, 0};
  return r;
}

/* Two new players (1500, 350, 0.06), South wins. Worked in full precision from the paper's steps
 * (independently, in Python): the winner 1662.3109 / 290.3190, the loser 1337.6891 / 290.3190,
 * both volatilities 0.0599997. The game counts in both records. */
TEST_IMPL(game_between_new_players) {
  srv_store_rating before[2] = {fresh(), fresh()}, after[2];
  double diff[2];
  ASSERT_EQ(srv_rating_game(before, MC_WIN_SOUTH, 1000, after, diff), 0);
  ASSERT_NEAR(after[0].rating, 1662.3109, 1e-4);
  ASSERT_NEAR(after[1].rating, 1337.6891, 1e-4);
  ASSERT_NEAR(after[0].rd, 290.3190, 1e-4);
  ASSERT_NEAR(after[1].rd, 290.3190, 1e-4);
  ASSERT_NEAR(after[0].vol, 0.0599997, 1e-7);
  ASSERT_NEAR(diff[0], 162.3109, 1e-4);
  ASSERT_NEAR(diff[1], -162.3109, 1e-4);
  ASSERT(after[0].games == 1 && after[0].wins == 1 && after[0].losses == 0);
  ASSERT(after[1].games == 1 && after[1].losses == 1 && after[1].wins == 0);
  ASSERT_EQ(after[0].last_ms, 1000);
  ASSERT_EQ(after[1].last_ms, 1000);
  /* North wins: the mirror image. */
  ASSERT_EQ(srv_rating_game(before, MC_WIN_NORTH, 1000, after, diff), 0);
  ASSERT_NEAR(after[1].rating, 1662.3109, 1e-4);
  ASSERT_NEAR(after[0].rating, 1337.6891, 1e-4);
  /* A draw between equals changes no rating; the deviations shrink all the same (290.3190). */
  ASSERT_EQ(srv_rating_game(before, MC_DRAW, 1000, after, diff), 0);
  ASSERT_NEAR(after[0].rating, 1500, 1e-9);
  ASSERT_NEAR(after[1].rating, 1500, 1e-9);
  ASSERT_NEAR(after[0].rd, 290.3190, 1e-4);
  ASSERT(after[0].draws == 1 && after[1].draws == 1);
  return 0;
}

/* The deviation of a player who was away grows by one period per day before the game: 1700/100
 * last played 10 days ago is rated at 1700/105.2920 (see period_without_games), against a player
 * who played at that very moment (1400/60, no growth). Worked in full precision (Python, from the
 * paper's steps): South wins and goes to 1709.3688 / 103.4109 (without the growth it would be
 * 1708.4966 / 98.4794), North goes to 1396.7535 / 60.4450 against the grown deviation. */
TEST_IMPL(deviation_grows_while_away) {
  int64_t day = SRV_RATING_DAY_MS, end = 100 * day;
  srv_store_rating before[2] = {{1700, 100, 0.06, 10, 5, 5, 0, end - 10 * day},
                                {1400, 60, 0.06, 10, 5, 5, 0, end}},
                   after[2];
  double diff[2];
  ASSERT_EQ(srv_rating_game(before, MC_WIN_SOUTH, end, after, diff), 0);
  ASSERT_NEAR(after[0].rating, 1709.3688, 1e-4);
  ASSERT_NEAR(after[0].rd, 103.4109, 1e-4);
  ASSERT_NEAR(after[1].rating, 1396.7535, 1e-4);
  ASSERT_NEAR(after[1].rd, 60.4450, 1e-4);
  ASSERT_NEAR(diff[0], 9.3688, 1e-4);
  ASSERT_EQ(after[0].games, 11);
  ASSERT_EQ(after[0].wins, 6);
  ASSERT_EQ(after[1].losses, 6);
  return 0;
}

TEST_IMPL(rateable_games) {
  srv_room_opts o;
  memset(&o, 0, sizeof o);
  for (int k = 0; k < 3; k++) {
    ASSERT_EQ(mc_rules_init(&o.rules, (mc_kind)k), 0);
    o.opponent = SRV_OPP_HUMAN;
    o.clocked = true;
    o.initial_ms = 300000;
    ASSERT(srv_rating_rateable(&o));
    o.clocked = false; /* No clock: unrated. */
    ASSERT(!srv_rating_rateable(&o));
    o.clocked = true;
    o.opponent = SRV_OPP_COMPUTER; /* The computer is unrated. */
    ASSERT(!srv_rating_rateable(&o));
    o.opponent = SRV_OPP_LOCAL;
    ASSERT(!srv_rating_rateable(&o));
    o.opponent = SRV_OPP_HUMAN;
    o.rules.houses = 5; /* Another board. */
    ASSERT(!srv_rating_rateable(&o));
  }
  ASSERT_EQ(mc_rules_init(&o.rules, MC_KALAH), 0);
  o.rules.empty_capture = true; /* Another option. */
  ASSERT(!srv_rating_rateable(&o));
  ASSERT_EQ(mc_rules_init(&o.rules, MC_CONGKAK), 0);
  o.rules.match = true;
  ASSERT(!srv_rating_rateable(&o));
  return 0;
}

/* Pairing: candidates oldest first. The range is 150 + 5 per second waited, at most 500. */
TEST_IMPL(pairing_choice) {
  ASSERT_EQ(srv_pair_choose(1500, NULL, 0), -1);
  /* One candidate: no choice, however far. */
  srv_pair_candidate one[] = {{2400, 0}};
  ASSERT_EQ(srv_pair_choose(1500, one, 1), 0);
  /* The oldest within range wins over a closer but younger one: 1600 is 100 away (in 150). */
  srv_pair_candidate c[] = {{1900, 0}, {1600, 0}, {1510, 0}};
  ASSERT_EQ(srv_pair_choose(1500, c, 3), 1);
  /* Nobody within range: the closest (1900 is 400 away, 1100 is 400 away too: the oldest). */
  srv_pair_candidate far[] = {{2000, 0}, {1900, 0}, {1100, 0}};
  ASSERT_EQ(srv_pair_choose(1500, far, 3), 1);
  /* Waiting widens the range: 1900 (400 away) after 50 s has 150 + 250 = 400, a match, and is
   * older than the 1550 that just came. */
  srv_pair_candidate waited[] = {{1900, 50000}, {1550, 0}};
  ASSERT_EQ(srv_pair_choose(1500, waited, 2), 0);
  /* 49 s is not enough (395 < 400): the 1550 wins. */
  waited[0].waited_ms = 49000;
  ASSERT_EQ(srv_pair_choose(1500, waited, 2), 1);
  /* The range stops at 500 however long one waits. */
  srv_pair_candidate capped[] = {{2100, 10000000}, {1550, 0}};
  ASSERT_EQ(srv_pair_choose(1500, capped, 2), 1);
  return 0;
}

/* Rated clocks: at least a minute, or 15 s with 1 s per move; the decoder refuses a shorter clock
 * for a rated room with bad_request on "clock". */
TEST_IMPL(rated_clock_minimum) {
  ASSERT(srv_rating_clock_ok(60000, 0));
  ASSERT(!srv_rating_clock_ok(59999, 0));
  ASSERT(srv_rating_clock_ok(15000, 1000));
  ASSERT(!srv_rating_clock_ok(14999, 1000));
  ASSERT(!srv_rating_clock_ok(15000, 999));
  ASSERT(!srv_rating_clock_ok(100, 0));
  ASSERT(!srv_rating_clock_ok(0, 60000));
  srv_cmd cmd;
  srv_proto_error perr;
  const char *farm = "{\"type\":\"create\",\"game\":\"kalah\",\"rated\":true,"
                     "\"clock\":{\"initial_ms\":100,\"increment_ms\":0}}";
  ASSERT_EQ(srv_proto_decode(farm, strlen(farm), &cmd, &perr), SRV_EBADREQ);
  ASSERT_STR_EQ(perr.field, "clock");
  const char *quick = "{\"type\":\"quick\",\"game\":\"oware\",\"rated\":true,"
                      "\"clock\":{\"initial_ms\":30000,\"increment_ms\":0}}";
  ASSERT_EQ(srv_proto_decode(quick, strlen(quick), &cmd, &perr), SRV_EBADREQ);
  ASSERT_STR_EQ(perr.field, "clock");
  /* The same clock unrated is fine; 1+0 and 15+1 s rated are fine. */
  const char *casual = "{\"type\":\"create\",\"game\":\"kalah\","
                       "\"clock\":{\"initial_ms\":100,\"increment_ms\":0}}";
  ASSERT_EQ(srv_proto_decode(casual, strlen(casual), &cmd, &perr), 0);
  const char *bullet = "{\"type\":\"create\",\"game\":\"kalah\",\"rated\":true,"
                       "\"clock\":{\"initial_ms\":60000}}";
  ASSERT_EQ(srv_proto_decode(bullet, strlen(bullet), &cmd, &perr), 0);
  const char *inc = "{\"type\":\"create\",\"game\":\"kalah\",\"rated\":true,"
                    "\"clock\":{\"initial_ms\":15000,\"increment_ms\":1000}}";
  ASSERT_EQ(srv_proto_decode(inc, strlen(inc), &cmd, &perr), 0);
  return 0;
}

/* Repeated games count less, then not at all: the first two of a key in its window fully, the
 * 3rd to 5th half, from the 6th nothing; a new window starts 24 h after the first game. */
TEST_IMPL(repeated_games_count_less) {
  ASSERT_NEAR(srv_rating_weight(0), 1, 0);
  ASSERT_NEAR(srv_rating_weight(1), 1, 0);
  ASSERT_NEAR(srv_rating_weight(2), 0.5, 0);
  ASSERT_NEAR(srv_rating_weight(4), 0.5, 0);
  ASSERT_NEAR(srv_rating_weight(5), 0, 0);
  ASSERT_NEAR(srv_rating_weight(50), 0, 0);
  ASSERT_NEAR(srv_rating_weight_addr(9), 1, 0);
  ASSERT_NEAR(srv_rating_weight_addr(10), 0.5, 0);
  ASSERT_NEAR(srv_rating_weight_addr(19), 0.5, 0);
  ASSERT_NEAR(srv_rating_weight_addr(20), 0, 0);
  srv_rating_repeats *t = srv_rating_repeats_new();
  ASSERT_NOT_NULL(t);
  for (int i = 0; i < 6; i++)
    ASSERT_EQ(srv_rating_repeats_add(t, "pair:a:b", 1000 + i * 1000), i);
  ASSERT_EQ(srv_rating_repeats_add(t, "pair:a:c", 9000), 0); /* Another pair: its own count. */
  /* 24 h after the pair's first game (at 1000) its window starts again. */
  ASSERT_EQ(srv_rating_repeats_add(t, "pair:a:b", 1000 + 86400000 - 1), 6);
  ASSERT_EQ(srv_rating_repeats_add(t, "pair:a:b", 1000 + 86400000), 0);
  ASSERT_EQ(srv_rating_repeats_add(t, "pair:a:b", 1000 + 86400000 + 1), 1);
  srv_rating_repeats_free(t);

  /* Bounded: when full, the key whose window started first is forgotten. */
  t = srv_rating_repeats_new();
  char key[32];
  for (int i = 0; i <= SRV_RATING_REPEAT_KEYS; i++) {
    snprintf(key, sizeof key, "k%d", i);
    ASSERT_EQ(srv_rating_repeats_add(t, key, 1000 + i), 0);
  }
  ASSERT_EQ(srv_rating_repeats_add(t, "k1", 900000), 1); /* Kept. */
  ASSERT_EQ(srv_rating_repeats_add(t, "k0", 900000), 0); /* Forgotten. */
  srv_rating_repeats_free(t);
  ASSERT_EQ(srv_rating_repeats_add(NULL, "k", 0), 0);

  /* Half a game between new players, South wins (game_between_new_players: 1662.3109 / 290.3190 /
   * 0.0599997): 1500 + 162.3109 / 2 = 1581.15545, RD 350 - 59.6810 / 2 = 320.1595, volatility
   * 0.06 - 0.0000003 / 2; the counts are the game's. */
  srv_store_rating before[2] = {fresh(), fresh()}, after[2];
  double diff[2];
  ASSERT_EQ(srv_rating_game(before, MC_WIN_SOUTH, 1000, after, diff), 0);
  srv_rating_scale(before, 0.5, after, diff);
  ASSERT_NEAR(after[0].rating, 1581.15545, 1e-4);
  ASSERT_NEAR(after[1].rating, 1418.84455, 1e-4);
  ASSERT_NEAR(after[0].rd, 320.1595, 1e-4);
  ASSERT_NEAR(after[0].vol, 0.05999985, 1e-7);
  ASSERT_NEAR(diff[0], 81.15545, 1e-4);
  ASSERT_NEAR(diff[1], -81.15545, 1e-4);
  ASSERT(after[0].games == 1 && after[0].wins == 1 && after[1].losses == 1);
  /* Weight 0: nothing moves. */
  ASSERT_EQ(srv_rating_game(before, MC_WIN_SOUTH, 1000, after, diff), 0);
  srv_rating_scale(before, 0, after, diff);
  ASSERT_NEAR(after[0].rating, 1500, 0);
  ASSERT_NEAR(after[0].rd, 350, 0);
  ASSERT_NEAR(diff[0], 0, 0);
  return 0;
}
