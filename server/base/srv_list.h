/* An intrusive doubly linked list, after libuv's queue.h and Linux's list_head: the node lives
 * inside the element, so linking and unlinking never allocate and unlinking is O(1).
 *
 * A list is a srv_list head that srv_list_init() links to itself. A node is a srv_list member of
 * the element; a node whose next is NULL is not in any list, so zeroed memory (calloc, lws'
 * per-connection data) is a valid unlinked node. Nothing here is thread-safe: the loop thread owns
 * every list.
 *
 *   typedef struct conn { ...; srv_list link; } conn;
 *   srv_list conns;
 *   srv_list_init(&conns);
 *   srv_list_push_back(&conns, &c->link);
 *   srv_list_foreach(it, &conns) { conn *c = srv_list_entry(it, conn, link); ... }
 *   srv_list_remove(&c->link);
 */
#ifndef SRV_LIST_H
#define SRV_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct srv_list {
  struct srv_list *prev, *next;
} srv_list;

/* The element of type that holds node ptr in its member. */
#define srv_list_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Walks the nodes of head; the body must not unlink it (use srv_list_foreach_safe for that). */
#define srv_list_foreach(it, head) for (srv_list *it = (head)->next; it != (head); it = it->next)

/* Walks the nodes of head; the body may unlink it (not the one after it). */
#define srv_list_foreach_safe(it, head)                                                            \
  for (srv_list *it = (head)->next, *it##_next_ = it->next; it != (head);                          \
       it = it##_next_, it##_next_ = it->next)

/* Makes head an empty list. */
static inline void srv_list_init(srv_list *head) {
  head->prev = head->next = head;
}

static inline bool srv_list_empty(const srv_list *head) {
  return head->next == head;
}

/* Whether node is in a list. */
static inline bool srv_list_linked(const srv_list *node) {
  return node->next != NULL;
}

static inline void srv_list_insert_(srv_list *node, srv_list *prev, srv_list *next) {
  node->prev = prev;
  node->next = next;
  prev->next = node;
  next->prev = node;
}

/* Appends node (not in a list) at the end of head. */
static inline void srv_list_push_back(srv_list *head, srv_list *node) {
  srv_list_insert_(node, head->prev, head);
}

/* Inserts node (not in a list) at the front of head. */
static inline void srv_list_push_front(srv_list *head, srv_list *node) {
  srv_list_insert_(node, head, head->next);
}

/* Unlinks node from its list; a node in no list is left alone. */
static inline void srv_list_remove(srv_list *node) {
  if (node->next == NULL)
    return;
  node->prev->next = node->next;
  node->next->prev = node->prev;
  node->prev = node->next = NULL;
}

/* Puts node (not in a list) where old is in its list, and unlinks old. */
static inline void srv_list_replace(srv_list *old, srv_list *node) {
  srv_list_insert_(node, old->prev, old->next);
  old->prev = old->next = NULL;
}

/* Exchanges the places of a and b, each in a list or not (the same list or two): a ends where b
 * was and b where a was. */
static inline void srv_list_swap(srv_list *a, srv_list *b) {
  if (a == b)
    return;
  bool la = srv_list_linked(a), lb = srv_list_linked(b);
  if (la && lb) {
    srv_list tmp;
    srv_list_replace(a, &tmp);
    srv_list_replace(b, a);
    srv_list_replace(&tmp, b);
  } else if (la) {
    srv_list_replace(a, b);
  } else if (lb) {
    srv_list_replace(b, a);
  }
}

/* The first node of head, or NULL when it is empty. */
static inline srv_list *srv_list_first(const srv_list *head) {
  return head->next == head ? NULL : head->next;
}

/* The node after node in head, or NULL at the end. */
static inline srv_list *srv_list_next(const srv_list *head, const srv_list *node) {
  return node->next == head ? NULL : node->next;
}

#endif
