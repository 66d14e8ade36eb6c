/* Glicko-2, step by step as Glickman's "Example of the Glicko-2 system" numbers them (see
 * srv_glicko.h). */
#include "srv_glicko.h"

#include <math.h>

/* The factor between the Glicko and the Glicko-2 scales (step 2). */
#define SCALE 173.7178
/* The convergence tolerance of the volatility iteration (step 5). */
#define EPSILON 0.000001
#define PI 3.14159265358979323846

static double g_of(double phi) {
  return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (PI * PI));
}

static double e_of(double mu, double mu_j, double phi_j) {
  return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

double srv_glicko_expect(const srv_glicko *a, const srv_glicko *b) {
  return e_of((a->rating - 1500.0) / SCALE, (b->rating - 1500.0) / SCALE, b->rd / SCALE);
}

/* Step 5's f(x). */
static double f_of(double x, double delta, double phi, double v, double a, double tau) {
  double ex = exp(x), d = phi * phi + v + ex;
  return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau);
}

/* Step 5: the new volatility, by the Illinois algorithm. */
static double new_volatility(double sigma, double phi, double v, double delta, double tau) {
  double a = log(sigma * sigma);
  double A = a, B;
  if (delta * delta > phi * phi + v) {
    B = log(delta * delta - phi * phi - v);
  } else {
    double k = 1;
    while (f_of(a - k * tau, delta, phi, v, a, tau) < 0)
      k++;
    B = a - k * tau;
  }
  double fA = f_of(A, delta, phi, v, a, tau), fB = f_of(B, delta, phi, v, a, tau);
  for (int i = 0; i < 200 && fabs(B - A) > EPSILON; i++) {
    double C = A + (A - B) * fA / (fB - fA), fC = f_of(C, delta, phi, v, a, tau);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2.0;
    }
    B = C;
    fB = fC;
  }
  return exp(A / 2.0);
}

static int bad(double x) {
  return !isfinite(x);
}

int srv_glicko_rate(const srv_glicko *player, const srv_glicko_game *games, size_t n, double tau,
                    srv_glicko *out) {
  if (player == NULL || out == NULL || (n > 0 && games == NULL) || bad(player->rating) ||
      bad(player->rd) || bad(player->vol) || player->rd <= 0 || player->vol <= 0 || bad(tau) ||
      tau <= 0)
    return -1;
  for (size_t j = 0; j < n; j++) {
    const srv_glicko_game *g = &games[j];
    if (bad(g->rating) || bad(g->rd) || g->rd <= 0 || bad(g->score) || g->score < 0 || g->score > 1)
      return -1;
  }
  /* Step 2: the Glicko-2 scale. */
  double mu = (player->rating - 1500.0) / SCALE, phi = player->rd / SCALE, sigma = player->vol;
  if (n == 0) {
    /* Step 6 alone: a period without games. */
    double rd = sqrt(phi * phi + sigma * sigma) * SCALE;
    *out = (srv_glicko){player->rating, rd, sigma};
    return 0;
  }
  /* Steps 3 and 4: the estimated variance v and the improvement delta. */
  double inv_v = 0, sum = 0;
  for (size_t j = 0; j < n; j++) {
    double mu_j = (games[j].rating - 1500.0) / SCALE, phi_j = games[j].rd / SCALE;
    double g = g_of(phi_j), e = e_of(mu, mu_j, phi_j);
    inv_v += g * g * e * (1.0 - e);
    sum += g * (games[j].score - e);
  }
  double v = 1.0 / inv_v, delta = v * sum;
  /* Step 5: the new volatility. */
  double sigma2 = new_volatility(sigma, phi, v, delta, tau);
  /* Steps 6 and 7: the new deviation and rating. */
  double phi_star = sqrt(phi * phi + sigma2 * sigma2);
  double phi2 = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  double mu2 = mu + phi2 * phi2 * sum;
  /* Step 8: back to the Glicko scale. */
  srv_glicko r = {SCALE * mu2 + 1500.0, SCALE * phi2, sigma2};
  if (bad(r.rating) || bad(r.rd) || bad(r.vol))
    return -1;
  *out = r;
  return 0;
}

void srv_glicko_idle(srv_glicko *r, double periods, double max_rd) {
  if (periods > 0) {
    double phi = r->rd / SCALE;
    r->rd = sqrt(phi * phi + periods * r->vol * r->vol) * SCALE;
  }
  if (r->rd > max_rd)
    r->rd = max_rd;
}
