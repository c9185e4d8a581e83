// libgpiod v1 (1.6.x on Debian bookworm and Raspberry Pi OS). Debian: libgpiod-dev.
#include <gpiod.h>
