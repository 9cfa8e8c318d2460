#ifndef BRAID_CHIREDIS_SHIM_H
#define BRAID_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#endif
