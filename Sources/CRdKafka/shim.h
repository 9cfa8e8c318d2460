#ifndef BRAID_CRDKAFKA_SHIM_H
#define BRAID_CRDKAFKA_SHIM_H
#include <librdkafka/rdkafka.h>
#endif
