// libi2c (i2c-tools) and the kernel's i2c-dev interface. Debian: libi2c-dev (no pkg-config file).
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
