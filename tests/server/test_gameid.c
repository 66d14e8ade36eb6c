/* Public game ids (srv_gameid.h). Security probe, finding 5: /api/games/1..N was sequential and
 * could be walked. The properties asked of the ids: one per game and back again, no order a
 * stranger can follow, a shape the routes can check, and a key of each database's own. */
#include <stdint.h>
#include <string.h>

#include "srv_gameid.h"
#include "task.h"

static const unsigned char key_a[SRV_GAMEID_KEY_LEN] = "0123456789abcdef";
static const unsigned char key_b[SRV_GAMEID_KEY_LEN] = "0123456789abcdeg";

static int bits_differing(const char *x, const char *y) {
  int n = 0;
  for (int i = 0; i < SRV_GAMEID_LEN; i++) {
    int a = x[i] <= '9' ? x[i] - '0' : x[i] - 'a' + 10,
        b = y[i] <= '9' ? y[i] - '0' : y[i] - 'a' + 10;
    n += __builtin_popcount((unsigned)(a ^ b));
  }
  return n;
}

TEST_IMPL(round_trip_and_shape) {
  srv_gameid_set_key(key_a);
  char id[SRV_GAMEID_LEN + 1];
  for (int64_t n = 1; n <= 20000; n++) {
    srv_gameid_format(n, id);
    ASSERT_EQ(strlen(id), SRV_GAMEID_LEN);
    ASSERT_EQ(strspn(id, "0123456789abcdef"), SRV_GAMEID_LEN);
    ASSERT_EQ(srv_gameid_parse(id, strlen(id)), n);
  }
  /* The largest store numbers too. */
  srv_gameid_format(INT64_MAX, id);
  ASSERT_EQ(srv_gameid_parse(id, strlen(id)), INT64_MAX);
  return 0;
}

TEST_IMPL(neighbours_look_unrelated) {
  srv_gameid_set_key(key_a);
  /* Consecutive games: a keyed permutation changes about half of the 64 bits (32 on average, a
   * binomial with standard deviation 4). Over 10,000 pairs the mean is within 31..33 (the mean's
   * standard deviation is 0.04), and no pair changes fewer than 8 bits (6 standard deviations
   * below: about 10^-10 per pair). */
  char prev[SRV_GAMEID_LEN + 1], id[SRV_GAMEID_LEN + 1];
  long total = 0;
  srv_gameid_format(1, prev);
  for (int64_t n = 2; n <= 10001; n++) {
    srv_gameid_format(n, id);
    int d = bits_differing(prev, id);
    ASSERT_GE(d, 8);
    total += d;
    memcpy(prev, id, sizeof id);
  }
  ASSERT_GE(total, 31L * 10000);
  ASSERT_LE(total, 33L * 10000);
  /* Another database's key names game 1 otherwise. */
  char a1[SRV_GAMEID_LEN + 1], b1[SRV_GAMEID_LEN + 1];
  srv_gameid_format(1, a1);
  srv_gameid_set_key(key_b);
  srv_gameid_format(1, b1);
  ASSERT_GE(bits_differing(a1, b1), 16);
  ASSERT_NE(srv_gameid_parse(a1, SRV_GAMEID_LEN), 1);
  return 0;
}

TEST_IMPL(guesses_find_nothing) {
  srv_gameid_set_key(key_a);
  /* What a stranger would try: store numbers, their decimal text, and 100,000 made-up ids. None
   * names any of the first 10^9 games (each does with probability 10^9 / 2^64 < 10^-10). */
  ASSERT_EQ(srv_gameid_parse("1", 1), 0);
  ASSERT_EQ(srv_gameid_parse("12", 2), 0);
  int64_t low = srv_gameid_parse("0000000000000001", 16);
  ASSERT(low == 0 || low > 1000000000);
  uint64_t x = 88172645463325252ULL; /* xorshift64, a fixed seed: the same guesses every run. */
  char guess[SRV_GAMEID_LEN + 1];
  for (int i = 0; i < 100000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (int k = 0; k < SRV_GAMEID_LEN; k++)
      guess[k] = "0123456789abcdef"[(x >> (4 * k)) & 15];
    int64_t n = srv_gameid_parse(guess, SRV_GAMEID_LEN);
    ASSERT(n == 0 || n > 1000000000);
  }
  return 0;
}

TEST_IMPL(malformed_ids) {
  srv_gameid_set_key(key_a);
  char id[SRV_GAMEID_LEN + 1];
  srv_gameid_format(42, id);
  ASSERT_EQ(srv_gameid_parse(id, SRV_GAMEID_LEN), 42);
  ASSERT_EQ(srv_gameid_parse(id, SRV_GAMEID_LEN - 1), 0); /* Cut. */
  char upper[SRV_GAMEID_LEN + 2];
  memcpy(upper, id, sizeof id);
  for (int i = 0; i < SRV_GAMEID_LEN; i++)
    if (upper[i] >= 'a')
      upper[i] = (char)(upper[i] - 'a' + 'A');
  if (strcmp(upper, id) != 0)
    ASSERT_EQ(srv_gameid_parse(upper, SRV_GAMEID_LEN), 0); /* Lowercase only: one spelling. */
  memcpy(upper, id, sizeof id);
  upper[SRV_GAMEID_LEN] = '0';
  upper[SRV_GAMEID_LEN + 1] = '\0';
  ASSERT_EQ(srv_gameid_parse(upper, SRV_GAMEID_LEN + 1), 0); /* Too long. */
  ASSERT_EQ(srv_gameid_parse("", 0), 0);
  ASSERT_EQ(srv_gameid_parse("zzzzzzzzzzzzzzzz", 16), 0);
  ASSERT_EQ(srv_gameid_parse("00000000-0000000", 16), 0);
  return 0;
}

TEST_IMPL(known_ids_stay_the_same) {
  /* Links to games are shared and must keep working: the ids of these numbers under these keys
   * were made by the first version (OpenSSL's one-shot HMAC(), no cache). The same number twice,
   * numbers 64 apart (one slot of the cache) and a change of key each give the right id. */
  static const struct {
    const unsigned char *key;
    int64_t n;
    const char *id;
  } known[] = {
      {key_a, 1, "ffa4ae261d21c468"},         {key_a, 65, "d11696d9128911fc"},
      {key_a, 1, "ffa4ae261d21c468"},         {key_a, 2, "c2b3558b2f8ebbb9"},
      {key_a, 1000, "5106b148c484d0c4"},      {key_a, INT64_MAX, "72caafdba8375ed0"},
      {key_b, 1, "52882dcacf081374"},         {key_b, 65, "4bb4b2b1fe6b09a4"},
      {key_b, 2, "b77e0d2630a4f57b"},         {key_b, 1000, "62140029dd864705"},
      {key_b, INT64_MAX, "9e7629dd33e4412f"}, {key_a, 65, "d11696d9128911fc"},
  };
  const unsigned char *key = NULL;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (known[i].key != key)
      srv_gameid_set_key(key = known[i].key);
    char id[SRV_GAMEID_LEN + 1];
    srv_gameid_format(known[i].n, id);
    ASSERT_STR_EQ(id, known[i].id);
    ASSERT_EQ(srv_gameid_parse(known[i].id, SRV_GAMEID_LEN), known[i].n);
  }
  srv_gameid_cleanup();
  return 0;
}
