#ifndef FIELDLOC_CI2C_SHIM_H
#define FIELDLOC_CI2C_SHIM_H
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <i2c/smbus.h>
#endif
