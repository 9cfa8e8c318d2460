#ifndef BRAID_CRDKAFKA_SHIM_H
#define BRAID_CRDKAFKA_SHIM_H
#include <librdkafka/rdkafka.h>
/* Declarations only: the in-process mock cluster that the fast tests run consumer groups on. */
#include <librdkafka/rdkafka_mock.h>
#endif
