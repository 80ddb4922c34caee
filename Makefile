# SPDX-License-Identifier: GPL-2.0
#
# User entry points (kbuild itself reads ./Kbuild):
#   make           build kdapl.ko, kiwarp.ko and the KUnit test modules
#                  (W=1) against the debug test kernel, building that
#                  kernel first if the cache has none
#   make check     the whole test suite (scripts/check.sh)
#   make demo      boot the guest and show the modules at work
#   make bench     benchmarks on the perf kernel (scripts/bench.sh)
#   make deps      install the Debian packages (scripts/install-deps.sh)
#   make clean     remove module build products and build/
#
# FLAVOUR=perf selects the non-debug kernel for `make` (benchmarks).
#
# Another kernel (a distribution's, README.md "Installing on a real
# machine"): make KDIR=/lib/modules/<release>/build builds against its
# headers (kunit/ only if it has KUnit), and
#   make install           builds and installs kdapl.ko, kiwarp.ko,
#                          kdapltest.ko (and the demo and bench modules)
#                          for KDIR's kernel, the running one
#                          if no KDIR is given (modules_install into
#                          /lib/modules/<release>/extra, then depmod, so
#                          that modprobe resolves ib_core, iw_cm, crc32c);
#                          INSTALL_MOD_PATH=<dir> installs under <dir>
#                          (a package's staging root: no depmod there)
#   make dkms-source       copies the module sources and dkms.conf to
#                          $(DKMS_SRC) for `dkms install kdapl/<version>`

FLAVOUR ?= debug
KDIR ?= $(shell $(CURDIR)/scripts/build-kernel.sh $(FLAVOUR))
# install: the kernel named on the command line, else the running one
IKDIR = $(if $(filter command line environment,$(origin KDIR)),$(KDIR),/lib/modules/$(shell uname -r)/build)
IREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(IKDIR)/include/generated/utsrelease.h)
# A distribution's headers carry no signing key (its kernel asks for one
# with MODULE_SIG_ALL): install unsigned rather than fail to sign each
# module; README.md tells how to sign with a key of your own for Secure Boot.
ISIGN = $(if $(wildcard $(IKDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
DKMS_SRC ?= /usr/src/kdapl-$(DKMS_VERSION)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

deps:
	$(CURDIR)/scripts/install-deps.sh

check:
	$(CURDIR)/scripts/check.sh

demo:
	$(CURDIR)/scripts/demo.sh

# BENCH_QUICK=1: three short rounds per comparison (scripts/bench.sh --quick)
bench:
	$(CURDIR)/scripts/bench.sh $(if $(filter 1,$(BENCH_QUICK)),--quick)

install:
	$(MAKE) -C $(IKDIR) M=$(CURDIR) W=1 modules
	$(MAKE) -C $(IKDIR) M=$(CURDIR) $(ISIGN) modules_install
	$(if $(INSTALL_MOD_PATH),,depmod -a $(IREL))

dkms-source:
	$(CURDIR)/scripts/module-sources.sh $(DKMS_SRC)

# dkms.conf's CLEAN: module build products only, for the kernel dkms names
clean-modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

clean:
	@ktree=$$(ls -d $${XDG_CACHE_HOME:-$$HOME/.cache}/kdapl/kernel-$(FLAVOUR)-* 2>/dev/null | head -n 1); \
	if [ -n "$$ktree" ]; then $(MAKE) -C $$ktree M=$(CURDIR) clean; fi
	rm -rf $(CURDIR)/build

.PHONY: all modules deps check demo bench install dkms-source clean-modules \
	clean
