#!/bin/sh
# Boot the test guest once and run one guest-side script in it.
#
#   scripts/run-guest.sh <kernel-tree> <run-dir> <guest-script> [timeout-s]
#
# <kernel-tree>  a tree from scripts/build-kernel.sh (bzImage, siw.ko)
# <run-dir>      host directory shared read-write with the guest as
#                /run/kdapl: modules/ is staged here, the guest writes its
#                results into out/; console.log receives the serial console
# <guest-script> path relative to the project root, run inside the guest
#
# Exit status: QEMU's, or 124 if the time-out (default 900 s) expired.
# Environment: KDAPL_SMP (CPUs, default 2), KDAPL_MEM (default 2G),
# KDAPL_CPU (QEMU -cpu, default max,la57=off), KDAPL_APPEND (more kernel
# command line words, e.g. make bench's tsc=reliable).
# KDAPL_DISTRO=<release>: boot the installed distribution kernel
# /boot/vmlinuz-<release> instead (<kernel-tree> is then not used, and
# nothing is staged into modules/: the caller puts there what the guest
# script needs); the initramfs carries that kernel's virtio and 9p
# modules (scripts/guest-stage.sh).
#
# Why la57=off: with `-cpu max` the guest uses 5-level paging and the
# KASAN kernel intermittently reports "BUG: KASAN: wild-memory-access in
# do_raw_spin_lock" from handle_edge_irq during early boot (before any
# module exists), after which lockdep is switched off for the whole run.
# Seen in 1 of 2 boots with la57 on, in none of 6 with it off.
#
# Why pci=noacpi: with ACPI (needed for SMP) the _PRT method runs so slowly
# under KASAN+TCG that it times out (AE_AML_LOOP_TIMEOUT, soft lockups),
# virtio devices get no interrupt and 9p hangs; legacy PCI IRQ routing
# avoids the AML interpreter while ACPI still enumerates the CPUs.
set -eu

ktree=$1
rundir=$2
script=$3
tmo=${4:-900}
top=$(cd "$(dirname "$0")/.." && pwd)
smp=${KDAPL_SMP:-2}
mem=${KDAPL_MEM:-2G}

mkdir -p "$rundir/modules" "$rundir/out"
rm -f "$rundir/out/"* "$rundir/console.log"

. "$top/scripts/guest-stage.sh"
distro=${KDAPL_DISTRO:-}
if [ -n "$distro" ]; then
	kernel=/boot/vmlinuz-$distro
	make_initramfs "$top" "$rundir" "$distro"
else
	kernel=$ktree/arch/x86/boot/bzImage
	stage_modules "$top" "$ktree" "$rundir/modules"
	make_initramfs "$top" "$rundir"
fi
initrd=$rundir/initramfs.cpio.gz

rc=0
timeout --foreground -k 10 "$tmo" \
	qemu-system-x86_64 -nodefaults -accel tcg -cpu ${KDAPL_CPU:-max,la57=off} -m "$mem" \
	-smp "$smp" -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 pci=noacpi no_timer_check panic=-1 oops=panic kdguest.run=$script ${KDAPL_APPEND:-}" \
	-serial "file:$rundir/console.log" -display none -no-reboot \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$rundir",mount_tag=kdapl_run,security_model=none,multidevs=remap \
	-virtfs local,path="$top",mount_tag=kdapl_src,security_model=none,readonly=on,multidevs=remap \
	</dev/null || rc=$?
exit "$rc"
