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

FLAVOUR ?= debug
KDIR ?= $(shell $(CURDIR)/scripts/build-kernel.sh $(FLAVOUR))

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

clean:
	@ktree=$$(ls -d $${XDG_CACHE_HOME:-$$HOME/.cache}/kdapl/kernel-$(FLAVOUR)-* 2>/dev/null | head -n 1); \
	if [ -n "$$ktree" ]; then $(MAKE) -C $$ktree M=$(CURDIR) clean; fi
	rm -rf $(CURDIR)/build

.PHONY: all modules deps check demo bench clean
