// RFC 2783 (the PPS API) as Linux gives it through /dev/ppsN: the structures and ioctl numbers come
// from the kernel's own <linux/pps.h> (uapi), so their layout is the running platform's. The ioctl
// numbers are function-like macros Swift cannot import: these wrappers call them.
//
// Checked against /usr/include/linux/pps.h (linux-libc-dev, Debian 12, kernel uapi 6.1): PPS_GETPARAMS
// _IOR('p', 0xa1, struct pps_kparams *), PPS_SETPARAMS _IOW('p', 0xa2, ...), PPS_GETCAP _IOR('p', 0xa3,
// int *), PPS_FETCH _IOWR('p', 0xa4, struct pps_fdata *) (the size field is a pointer's size, 8 on
// 64-bit: 0x800870a1, 0x400870a2, 0x800870a3, 0xc00870a4 on x86_64 and arm64); struct pps_ktime {
// __s64 sec; __s32 nsec; __u32 flags; } (16 bytes), struct pps_kinfo { __u32 assert_sequence,
// clear_sequence; struct pps_ktime assert_tu, clear_tu; int current_mode; } (48 bytes with padding),
// struct pps_fdata { struct pps_kinfo info; struct pps_ktime timeout; } (64 bytes). Timestamps are
// CLOCK_REALTIME, taken by the kernel when the client driver reports the edge (pps_get_ts()).
// PPS_FETCH waits for an event newer than the call's start until `timeout` (flags 0); a zero timeout
// returns the last event at once; PPS_TIME_INVALID in timeout.flags waits forever (not used here).
// PPS_SETPARAMS needs CAP_SYS_TIME (drivers/pps/pps.c).
#include <linux/pps.h>
#include <sys/ioctl.h>

static inline int fieldloc_pps_getcap(int fd, int *mode) { return ioctl(fd, PPS_GETCAP, mode); }
static inline int fieldloc_pps_getparams(int fd, struct pps_kparams *params) { return ioctl(fd, PPS_GETPARAMS, params); }
static inline int fieldloc_pps_setparams(int fd, struct pps_kparams *params) { return ioctl(fd, PPS_SETPARAMS, params); }
static inline int fieldloc_pps_fetch(int fd, struct pps_fdata *data) { return ioctl(fd, PPS_FETCH, data); }

// The request numbers themselves, for the test that checks them against the values written above.
static inline unsigned long fieldloc_pps_request_getparams(void) { return PPS_GETPARAMS; }
static inline unsigned long fieldloc_pps_request_setparams(void) { return PPS_SETPARAMS; }
static inline unsigned long fieldloc_pps_request_getcap(void) { return PPS_GETCAP; }
static inline unsigned long fieldloc_pps_request_fetch(void) { return PPS_FETCH; }
