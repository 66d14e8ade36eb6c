/* The one table of server errors: codes, protocol names and sentences. */
#include "srv_error.h"

#include "mc_error.h"

static const char *const codes[] = {
#define SRV_ERROR_CODE(sym, code, text) code,
    SRV_ERRORS(SRV_ERROR_CODE)
#undef SRV_ERROR_CODE
};

static const char *const messages[] = {
#define SRV_ERROR_TEXT(sym, code, text) text,
    SRV_ERRORS(SRV_ERROR_TEXT)
#undef SRV_ERROR_TEXT
};

int srv_err_index(int err) {
  if (err <= SRV_E_BASE_ || err >= SRV_E_END_)
    err = SRV_EINTERNAL;
  return err - SRV_E_BASE_ - 1;
}

const char *srv_err_code(int err) {
  return codes[srv_err_index(err)];
}

const char *srv_err_message(int err) {
  return messages[srv_err_index(err)];
}

int srv_err_from_engine(int mc_err) {
  switch (mc_err) {
  case MC_EILLEGAL:
    return SRV_EILLEGAL;
  case MC_EOVER:
    return SRV_EOVER;
  case MC_ENOMEM:
    return SRV_ENOMEM;
  default:
    return SRV_EINTERNAL;
  }
}
