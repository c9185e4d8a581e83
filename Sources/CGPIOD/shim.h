#ifndef FIELDLOC_CGPIOD_SHIM_H
#define FIELDLOC_CGPIOD_SHIM_H
#include <gpiod.h>
#endif
