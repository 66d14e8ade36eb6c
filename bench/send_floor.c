/* The floor under a recipient's cost (docs/performance.md, issue 22's spectators row): the CPU
 * time one send() of a state-sized frame costs the sending process on loopback TCP, without a
 * server, a protocol or a library around it. On loopback the kernel runs the receiver's half of
 * TCP inside the sender's system call, so this is what any server pays per recipient per frame
 * when each member of a room receives each state (protocol-v1: "after every change every member
 * of the room receives the full state").
 *
 * A child process opens the receiving sockets and reads them; the parent sends rounds of one frame
 * to every socket (a move's states to the room's members), with TCP_NODELAY as the server sets it,
 * and reports its own CPU time per send (the thread's CPU clock around each round's sends). Two
 * receivers:
 *   - blocking: the child sleeps in epoll_wait() like a real client (loadgen, a browser), so a
 *     send may also wake it up;
 *   - spinning: the child polls without sleeping, so no send pays a wake-up (the lower bound).
 *
 *   bin/send-floor [recipients] [bytes] [rounds]     (defaults 50, 900, 4000)
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECIPIENTS 1000

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* The receiving side: connect n sockets, then read everything until the parent closes them. */
static void receive(const struct sockaddr_in *to, int n, int spin) {
  static int fds[MAX_RECIPIENTS];
  int ep = epoll_create1(0);
  if (ep < 0)
    _exit(2);
  for (int i = 0; i < n; i++) {
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[i] < 0 || connect(fds[i], (const struct sockaddr *)to, sizeof *to) != 0)
      _exit(2);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) != 0)
      _exit(2);
  }
  static char buf[1 << 16];
  struct epoll_event evs[64];
  for (int open = n; open > 0;) {
    int k = epoll_wait(ep, evs, 64, spin ? 0 : -1);
    if (k < 0 && errno != EINTR)
      _exit(2);
    for (int j = 0; j < k; j++) {
      ssize_t r = recv(fds[evs[j].data.u32], buf, sizeof buf, MSG_DONTWAIT);
      if (r == 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fds[evs[j].data.u32], NULL);
        open--;
      }
    }
  }
  _exit(0);
}

/* One measurement: CPU microseconds per send(), or a negative value on failure. */
static double measure(int n, size_t bytes, int rounds, int spin) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 ||
      getsockname(l, (struct sockaddr *)&a, &al) != 0 || listen(l, n) != 0)
    return -1;
  pid_t child = fork();
  if (child < 0)
    return -1;
  if (child == 0) {
    close(l);
    receive(&a, n, spin);
  }
  static int s[MAX_RECIPIENTS];
  for (int i = 0; i < n; i++) {
    s[i] = accept(l, NULL, NULL);
    int one = 1;
    if (s[i] < 0 || setsockopt(s[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
      return -1;
  }
  close(l);
  char *frame = malloc(bytes);
  if (frame == NULL)
    return -1;
  memset(frame, 'x', bytes);
  /* A pause between rounds, as between moves, lets the receiver drain. Only the sends are timed
   * (the thread's CPU clock read before and after each round's sends, less what two reads of the
   * clock cost alone), so the pause's own system call is not counted. */
  double clock_cost = cpu_us();
  for (int i = 0; i < 1000; i++)
    (void)cpu_us();
  clock_cost = (cpu_us() - clock_cost) / 1000.0;
  struct timespec pause = {0, 20000};
  long sent = 0;
  double spent = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = cpu_us();
    for (int i = 0; i < n; i++)
      if (send(s[i], frame, bytes, MSG_NOSIGNAL) == (ssize_t)bytes)
        sent++;
    spent += cpu_us() - t0 - clock_cost;
    nanosleep(&pause, NULL);
  }
  for (int i = 0; i < n; i++)
    close(s[i]);
  free(frame);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || sent == 0)
    return -1;
  return spent / (double)sent;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  long bytes = argc > 2 ? atol(argv[2]) : 900;
  int rounds = argc > 3 ? atoi(argv[3]) : 4000;
  if (n < 1 || n > MAX_RECIPIENTS || bytes < 1 || bytes > (1 << 20) || rounds < 1) {
    fprintf(stderr, "usage: send-floor [recipients 1-%d] [bytes] [rounds]\n", MAX_RECIPIENTS);
    return 2;
  }
  printf("loopback send() of %ld bytes to %d recipients, %d rounds: sender CPU per send\n", bytes,
         n, rounds);
  static const char *const names[] = {"blocking receiver (sleeps in epoll_wait)",
                                      "spinning receiver (no wake-ups)"};
  for (int spin = 0; spin <= 1; spin++) {
    double us = measure(n, (size_t)bytes, rounds, spin);
    if (us < 0) {
      fprintf(stderr, "send-floor: %s: %s\n", names[spin], strerror(errno));
      return 1;
    }
    printf("  %-42s %6.2f us\n", names[spin], us);
  }
  return 0;
}
