# SPDX-License-Identifier: GPL-2.0
#
# User entry points (kbuild itself reads ./Kbuild):
#   make           build kdapl.ko, kiwarp.ko and the KUnit test modules
#                  (W=1) against the debug test kernel, building that
#                  kernel first if the cache has none
#   make check     the whole test suite (scripts/check.sh)
#   make demo      boot the guest and show the modules at work
#   make bench     benchmarks on the perf kernel (scripts/bench.sh)
#   make stress    long fault, load and churn runs on the debug kernel
#                  (scripts/stress.sh; `make check` runs them short, as
#                  does make stress STRESS_LEVEL=check)
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
# the release the headers are for (a distribution's kernel.release file
# may say the upstream version instead)
IREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(IKDIR)/include/generated/utsrelease.h 2>/dev/null)
# Signing at modules_install (MODULE_SIG_ALL) needs the kernel's private
# key, which a distribution's headers do not carry: kbuild would try each
# module and fail noisily. Without the key, install unsigned and say so;
# README.md tells how to sign with a key of your own for Secure Boot.
ICONF = $(IKDIR)/include/config/auto.conf
ISIGALL = $(shell grep -qx 'CONFIG_MODULE_SIG_ALL=y' $(ICONF) 2>/dev/null && echo y)
ISIGKEY = $(shell sed -n 's/^CONFIG_MODULE_SIG_KEY=//p' $(ICONF) 2>/dev/null | tr -d '"')
INOKEY = $(if $(ISIGALL),$(if $(filter pkcs11:%,$(ISIGKEY)),,$(if $(wildcard $(ISIGKEY) $(IKDIR)/$(ISIGKEY)),,y)))
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

stress:
	STRESS_LEVEL=$(or $(STRESS_LEVEL),stress) $(CURDIR)/scripts/stress.sh

install:
	$(if $(IREL),,$(error no kernel release in $(IKDIR)/include/generated/utsrelease.h: set KDIR to a configured kernel tree))
	$(MAKE) -C $(IKDIR) M=$(CURDIR) W=1 modules
	$(MAKE) -C $(IKDIR) M=$(CURDIR) $(if $(INOKEY),CONFIG_MODULE_SIG_ALL=) modules_install
	$(if $(INOKEY),@echo "install: no signing key ($(ISIGKEY)) for $(IREL): the modules are installed unsigned (README.md, Secure Boot)")
	$(if $(INSTALL_MOD_PATH),,depmod -a $(IREL))

dkms-source:
	$(CURDIR)/scripts/module-sources.sh $(DKMS_SRC)

clean:
	@ktree=$$(ls -d $${XDG_CACHE_HOME:-$$HOME/.cache}/kdapl/kernel-$(FLAVOUR)-* 2>/dev/null | head -n 1); \
	if [ -n "$$ktree" ]; then $(MAKE) -C $$ktree M=$(CURDIR) clean; fi
	rm -rf $(CURDIR)/build

.PHONY: all modules deps check demo bench stress install dkms-source clean
