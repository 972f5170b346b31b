package pin

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
