// The kernel's HCI socket interface, declared here with the platform's C types so LinuxHardware needs
// neither libbluetooth nor its headers (no library to link). Each item names where the kernel
// defines it (Linux 6.1, the same since 3.x):
//   AF_BLUETOOTH 31                  include/linux/socket.h
//   BTPROTO_HCI 1, SOL_HCI 0         include/net/bluetooth/bluetooth.h
//   HCI_FILTER 2, HCI_CHANNEL_RAW 0  include/net/bluetooth/hci_sock.h
//   struct sockaddr_hci              include/net/bluetooth/hci_sock.h
//   struct hci_ufilter               include/net/bluetooth/hci_sock.h (what setsockopt(HCI_FILTER) copies)
//   struct hci_dev_info              include/net/bluetooth/hci_sock.h (bdaddr_t is 6 packed bytes)
//   HCIDEVUP _IOW('H', 201, int), HCIGETDEVINFO _IOR('H', 211, int)   include/net/bluetooth/hci_sock.h
//   HCI_UP: bit 0 of hci_dev_info.flags (enum in include/net/bluetooth/hci.h)
//
// No system header is included: a [system] module that includes <sys/socket.h> or <sys/ioctl.h>
// takes their declarations over from Glibc, and LinuxHardware's other files (compiled whole-module
// in release) then lose SOCK_DGRAM and friends. So the types are the C base types of the same
// sizes, and the ioctl numbers are written out: _IOW('H', 201, int) = (1 << 30) | (4 << 16) |
// ('H' << 8) | 201, _IOR('H', 211, int) = (2 << 30) | (4 << 16) | ('H' << 8) | 211 (asm-generic/ioctl.h).

#define FIELDLOC_AF_BLUETOOTH 31
#define FIELDLOC_BTPROTO_HCI 1
#define FIELDLOC_SOL_HCI 0
#define FIELDLOC_HCI_FILTER 2
#define FIELDLOC_HCI_CHANNEL_RAW 0
#define FIELDLOC_HCI_UP_FLAG 0x1

struct fieldloc_sockaddr_hci {
    unsigned short hci_family;   // sa_family_t
    unsigned short hci_dev;
    unsigned short hci_channel;
};

struct fieldloc_hci_filter {
    unsigned int type_mask;      // bit n: packet type n (0x04 = events)
    unsigned int event_mask[2];  // bit n: event code n
    unsigned short opcode;         // 0: every command's events
};

struct fieldloc_hci_dev_info {
    unsigned short dev_id;
    char name[8];
    unsigned char bdaddr[6];
    unsigned int flags;
    unsigned char type;
    unsigned char features[8];
    unsigned int pkt_type;
    unsigned int link_policy;
    unsigned int link_mode;
    unsigned short acl_mtu;
    unsigned short acl_pkts;
    unsigned short sco_mtu;
    unsigned short sco_pkts;
    unsigned int stat[10];       // struct hci_dev_stats: ten 32-bit counters
};

#define FIELDLOC_HCIDEVUP 0x400448C9UL
#define FIELDLOC_HCIGETDEVINFO 0x800448D3UL
