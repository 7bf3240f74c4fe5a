#include <systemd/sd-id128.h>
#include <systemd/sd-daemon.h>
