// The two time-reference layouts fieldlocd writes, declared with the platform's own C types so the
// compiler lays them out exactly as the readers (compiled on the same platform) do. No library to link.
//
// struct fieldloc_sock_sample is chrony's `struct sock_sample` (chrony, refclock_sock.c): chronyd
// reads one datagram per sample and drops any whose length is not sizeof(struct sock_sample)
// (40 bytes on 64-bit Linux, 32 on armhf with a 32-bit time_t), or whose magic is not 0x534f434b.
//
// struct fieldloc_shm_time is ntpd's `struct shmTime` (ntpsec and ntp 4.2, refclock_shm.c), which
// chrony's `refclock SHM` reads too: segment key 0x4e545030 + unit, mode 1 protocol
// (writer: valid = 0; count++; barrier; fields; barrier; count++; valid = 1).
#include <sys/time.h>
#include <sys/timex.h>   // adjtimex: whether the system clock is synchronised (receiver aiding)
#include <time.h>

#define FIELDLOC_SOCK_MAGIC 0x534f434b
#define FIELDLOC_SHM_KEY_BASE 0x4e545030

struct fieldloc_sock_sample {
    struct timeval tv;   // system time of the measurement
    double offset;       // true time minus system time, seconds
    int pulse;           // non-zero: a PPS edge whose second another source names
    int leap;            // 0 normal, 1 insert a leap second, 2 delete one
    int _pad;
    int magic;           // FIELDLOC_SOCK_MAGIC
};

struct fieldloc_shm_time {
    int mode;
    volatile int count;
    time_t clockTimeStampSec;       // the reference (GNSS) time
    int clockTimeStampUSec;
    time_t receiveTimeStampSec;     // the system time when it was taken
    int receiveTimeStampUSec;
    int leap;
    int precision;                  // log2 of the precision, seconds
    int nsamples;
    volatile int valid;
    unsigned clockTimeStampNSec;
    unsigned receiveTimeStampNSec;
    int dummy[8];
};
