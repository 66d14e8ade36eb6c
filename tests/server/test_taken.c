/* The account names guests may not take (srv_taken.h): found by key or by TR39 skeleton, the
 * asker's own account excepted, replaced and removed; and read from a real SQLite store. The
 * skeletons themselves are test_names.c's. */
#include <stdio.h>
#include <string.h>

#include "srv_error.h"
#include "srv_store.h"
#include "srv_taken.h"
#include "store_util.h"
#include "task.h"

/* The owner srv_taken_find() reports for name (except: NULL), "" for none, "(invalid)". */
static const char *owner_of(const srv_taken *t, const char *name, const char *except) {
  const char *owner = NULL;
  if (srv_taken_find(t, name, except, &owner) != 0)
    return "(invalid)";
  return owner == NULL ? "" : owner;
}

TEST_IMPL(taken_by_key_and_skeleton) {
  srv_taken *t = srv_taken_new();
  ASSERT_NOT_NULL(t);
  ASSERT_EQ(srv_taken_add(t, "00000000000000a1", "Magnus_Oak"), 0);
  ASSERT_EQ(srv_taken_add(t, "00000000000000b2", "Zofia"), 0);
  ASSERT_EQ(srv_taken_count(t), 2);
  /* The same key (case, 0 for O). */
  ASSERT_STR_EQ(owner_of(t, "magnus oak", NULL), "00000000000000a1");
  ASSERT_STR_EQ(owner_of(t, "Z0FIA", NULL), "00000000000000b2");
  /* Only the skeleton: the key keeps U+0261, U+212A, Lisu and the braille blank... as they are. */
  ASSERT_STR_EQ(owner_of(t, "Ma\u0261nus_Oak", NULL), "00000000000000a1");
  ASSERT_STR_EQ(owner_of(t, "Magnus_Oa\u212a", NULL), "00000000000000a1");
  ASSERT_STR_EQ(owner_of(t, "\ua4dfagnus_Oak", NULL), "00000000000000a1");
  ASSERT_STR_EQ(owner_of(t, "Magnus_\u0555ak", NULL), "00000000000000a1");
  /* Free names, and the asker's own account. */
  ASSERT_STR_EQ(owner_of(t, "Magnus_Oaks", NULL), "");
  ASSERT_STR_EQ(owner_of(t, "Ma\u0261nus_Oak", "00000000000000a1"), "");
  ASSERT_STR_EQ(owner_of(t, "!!!", NULL), "");
  ASSERT_STR_EQ(owner_of(t, "\xff", NULL), "(invalid)");
  /* A name with nothing to compare is not added. */
  ASSERT_EQ(srv_taken_add(t, "00000000000000c3", "!!!"), SRV_ENAMEINVALID);
  ASSERT_EQ(srv_taken_count(t), 2);
  /* Replaced: the player's old name is free. */
  ASSERT_EQ(srv_taken_add(t, "00000000000000b2", "Zosia"), 0);
  ASSERT_EQ(srv_taken_count(t), 2);
  ASSERT_STR_EQ(owner_of(t, "Zofia", NULL), "");
  ASSERT_STR_EQ(owner_of(t, "Zosia", NULL), "00000000000000b2");
  /* Removed (a deleted account). */
  srv_taken_remove(t, "00000000000000a1");
  srv_taken_remove(t, "0000000000000000"); /* Not there: nothing. */
  ASSERT_EQ(srv_taken_count(t), 1);
  ASSERT_STR_EQ(owner_of(t, "Ma\u0261nus_Oak", NULL), "");
  srv_taken_free(t);
  srv_taken_free(NULL);
  return 0;
}

TEST_IMPL(taken_loaded_from_the_store) {
  char dir[256], err[SRV_STORE_ERR_SIZE];
  tmp_dir(dir, sizeof dir);
  srv_store *store;
  ASSERT_EQ(srv_store_open(dir, NULL, &store, err), 0);
  /* Keys as register writes them (test_names.c checks those). */
  const char *ids[] = {"00000000000000a1", "00000000000000b2"};
  const char *names[] = {"Magnus_Oak", "Zofia"}, *keys[] = {"magnusoak", "zofla"};
  for (int i = 0; i < 2; i++) {
    put_player(store, ids[i], names[i], i + 1);
    srv_store_account acc = {.created_ms = 1, .password_ms = 1};
    snprintf(acc.player, sizeof acc.player, "%s", ids[i]);
    snprintf(acc.name, sizeof acc.name, "%s", names[i]);
    snprintf(acc.key, sizeof acc.key, "%s", keys[i]);
    snprintf(acc.password, sizeof acc.password, "$argon2id$x");
    ASSERT_EQ(srv_store_account_create(store, &acc), 0);
  }
  ASSERT_EQ(srv_store_commit(store), 0);
  srv_taken *t = srv_taken_new();
  ASSERT_NOT_NULL(t);
  ASSERT_EQ(srv_taken_load(t, store), 0);
  ASSERT_EQ(srv_taken_count(t), 2);
  ASSERT_STR_EQ(owner_of(t,
                         "\U0001d40c\U0001d41a\U0001d420\U0001d427\U0001d42e\U0001d42c_"
                         "\U0001d40e\U0001d41a\U0001d424",
                         NULL),
                "00000000000000a1");
  ASSERT_STR_EQ(owner_of(t, "Zofia\u2800", NULL), "00000000000000b2");
  srv_taken_free(t);
  srv_store_close(store);
  rm_tree(dir);
  return 0;
}
