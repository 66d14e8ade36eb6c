/* Error codes of the rules engine. */
#include "mc_error.h"

const char *mc_strerror(int err) {
  switch (err) {
  case 0:
    return "success";
  case MC_EINVAL:
    return "invalid argument";
  case MC_EILLEGAL:
    return "illegal move";
  case MC_EOVER:
    return "the game is over";
  case MC_ESYNTAX:
    return "malformed text";
  case MC_ENOMEM:
    return "out of memory";
  case MC_ELIMIT:
    return "internal limit reached";
  case MC_EIO:
    return "file input or output failed";
  case MC_ECORRUPT:
    return "corrupt file";
  case MC_ECANCELED:
    return "canceled";
  default:
    return "unknown error";
  }
}

const char *mc_err_name(int err) {
  switch (err) {
  case 0:
    return "OK";
  case MC_EINVAL:
    return "EINVAL";
  case MC_EILLEGAL:
    return "EILLEGAL";
  case MC_EOVER:
    return "EOVER";
  case MC_ESYNTAX:
    return "ESYNTAX";
  case MC_ENOMEM:
    return "ENOMEM";
  case MC_ELIMIT:
    return "ELIMIT";
  case MC_EIO:
    return "EIO";
  case MC_ECORRUPT:
    return "ECORRUPT";
  case MC_ECANCELED:
    return "ECANCELED";
  default:
    return "EUNKNOWN";
  }
}
