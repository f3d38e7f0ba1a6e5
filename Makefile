# vrnic top-level Makefile.
#
#   make              build kmod/vrnic.ko and the C++ parts (libctl, rdmactl)
#   make deps         install the Debian packages the project needs (as root)
#   make check        host unit tests + module build + VM selftests (TAP)
#   make check-debug  VM selftests + full stress on a KASAN/lockdep/kmemleak
#                     kernel built from linux-source-6.1 (first run: long build)
#   make demo         boot a VM and show vrnic working
#   make cc-demo      DCQCN on vs off through an ECN-marking bottleneck: figures,
#                     oracle replay of the traces, rate plots
#   make bench        perftest, vrnic vs rdma_rxe in one VM boot (ratios)
#   make lint         checkpatch --strict + sparse on kmod, clang-format on C++
#   make dkms-install add/build/install the module with DKMS
#   make install      install rdmactl, its man page and bash completion,
#                     the systemd units and the udev rule
#   make deb          Debian packages vrnic-dkms and rdmactl in build/deb/
#                     (dpkg-buildpackage from the tracked files, then lintian)

# The version is written once, in debian/changelog; dkms.conf says
# #MODULE_VERSION# (dh_dkms and dkms-build fill it in), CMake reads it too.
VERSION := $(shell awk 'NR == 1 { gsub(/[()]/, "", $$2); sub(/-.*/, "", $$2); print $$2; exit }' debian/changelog)
KVER ?= $(shell ls /lib/modules 2>/dev/null | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
KSRC_TAR ?= /usr/src/linux-source-6.1.tar.xz
KSRC := $(BUILD)/ksrc
CMAKE_BUILD := $(BUILD)/cmake

export KVER KDIR

# The module and the C tests build in parallel unless make already runs
# with -j (then the sub-makes share its job slots).
JOBS = $(if $(findstring j,$(filter-out --%,$(MAKEFLAGS))),,-j$(shell nproc))

DEB_PKGS := build-essential make cmake g++ pkg-config kmod cpio xz-utils \
	rsync bc flex bison libelf-dev \
	rdma-core libibverbs-dev librdmacm-dev ibverbs-utils ibverbs-providers \
	rdmacm-utils perftest python3-pyverbs \
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev \
	libcli11-dev nlohmann-json3-dev googletest libgtest-dev clang-format \
	dkms qemu-system-x86 busybox-static \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
	sparse fio nvme-cli iproute2 util-linux procps jq \
	dpkg-dev debhelper dh-dkms lintian devscripts systemd udev \
	ucx-utils libucx0 libfabric-bin libfabric1 openmpi-bin libopenmpi-dev qperf python3 \
	nfs-kernel-server nfs-common \
	python3-matplotlib

.PHONY: all kmod cpp selftests pyverbs-tests deps check check-debug demo cc-demo bench interop-hosts lint dkms-install \
	dkms-build dkms-stage install clean ksrc deb deb-test

all: kmod cpp selftests

kmod:
	@test -d "$(KDIR)" || { echo "Error: no kernel build tree at $(KDIR) (run 'make deps')." >&2; exit 1; }
	$(MAKE) $(JOBS) -C $(KDIR) M=$(CURDIR)/kmod modules

# A unity build: the sources share the heavy headers (CLI11, nlohmann/json,
# GoogleTest) and compile in about half the time; the package build
# (debian/rules) compiles them one by one, so both ways stay valid.
cpp:
	cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON >/dev/null
	cmake --build $(CMAKE_BUILD) -j$$(nproc)

# The C tests, and the test-only module that widens race windows for
# some of them (selftests/widen, loaded by dp_hostile).
selftests: ksrc pyverbs-tests
	$(MAKE) $(JOBS) -C selftests KSRC=$(KSRC) OUT=$(BUILD)/selftests
	$(MAKE) $(JOBS) -C $(KDIR) M=$(CURDIR)/selftests/widen modules

# rdma-core's own verbs test suite (pyverbs), as Debian ships it: partly
# gzipped under /usr/share/doc.  Unpacked into build/, never committed;
# selftests/verbs_pyverbs.sh runs it in the VM.
PYVERBS_SRC ?= /usr/share/doc/rdma-core/tests
PYVERBS_TESTS := $(BUILD)/pyverbs/tests

pyverbs-tests: $(PYVERBS_TESTS)/.stamp

$(PYVERBS_TESTS)/.stamp: $(wildcard $(PYVERBS_SRC)/*)
	rm -rf $(PYVERBS_TESTS)
	mkdir -p $(PYVERBS_TESTS)
	cp $(PYVERBS_SRC)/*.py* $(PYVERBS_TESTS)/
	gunzip -f $(PYVERBS_TESTS)/*.py.gz
	touch $@

# Only the few files we need from Debian's kernel source tarball.
KSRC_FILES := tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest.h \
	scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch

ksrc: $(KSRC)/.stamp

$(KSRC)/.stamp: $(KSRC_TAR)
	@mkdir -p $(KSRC)/tmp
	tar -xJf $(KSRC_TAR) -C $(KSRC)/tmp --strip-components=1 \
		$(addprefix linux-source-6.1/,$(KSRC_FILES))
	cp $(KSRC)/tmp/tools/testing/selftests/kselftest_harness.h \
	   $(KSRC)/tmp/tools/testing/selftests/kselftest.h $(KSRC)/
	cp $(KSRC)/tmp/scripts/checkpatch.pl $(KSRC)/tmp/scripts/spelling.txt \
	   $(KSRC)/tmp/scripts/const_structs.checkpatch $(KSRC)/
	rm -rf $(KSRC)/tmp
	touch $@

# Installs only what is missing; apt-get update runs once, first.
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "Error: 'make deps' must run as root." >&2; exit 1; fi; \
		apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $$missing; \
	fi

check: deps
	$(MAKE) all
	$(MAKE) dkms-stage
	selftests/check.sh

# Not part of "make check": the kernel build takes long the first time
# (cached in build/debug-kernel/), and the run takes hours under TCG.
check-debug: deps
	$(MAKE) all
	selftests/vm/debug-kernel.sh check

demo: deps
	$(MAKE) all
	selftests/vm/vm.sh demo

# Two and four RoCE flows through an ECN-marking bottleneck (htb + red
# ecn), DCQCN on versus off: drops, queue, utilisation, fairness; each QP's
# DCQCN trace replayed exactly by ../shared/cc/dcqcn_oracle.py, and per-QP
# rate-versus-time plots (tests/cc_bottleneck.sh/rate-*.png in the run's
# results).
cc-demo: deps
	$(MAKE) all
	CC_PLOTS=1 selftests/vm/vm.sh check cc_bottleneck.sh

# One device (selftests/bench.sh), then two guests on one link
# (selftests/bench_hosts.sh); Markdown, JSON and charts in build/bench/.
BENCH_OUT := $(BUILD)/bench
PYTHON3 := $(firstword $(wildcard /usr/bin/python3) python3)
bench: deps
	$(MAKE) all
	rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	selftests/vm/vm.sh bench
	cp $(BUILD)/vm/results/bench.md $(BUILD)/vm/results/bench.json $(BENCH_OUT)/
	$(PYTHON3) selftests/lib/bench_report.py plot $(BENCH_OUT)/bench.json $(BENCH_OUT)/bench.png
	VRNIC_VM_SLUB_DEBUG= selftests/vm/pair.sh \
		"$(CURDIR)/selftests/bench_hosts.sh peer" "$(CURDIR)/selftests/bench_hosts.sh main"
	$(PYTHON3) selftests/lib/bench_report.py hosts $(BUILD)/vm/results/bench_hosts.samples $(BENCH_OUT)

# The standard tools between two guests, vrnic against rdma_rxe both ways
# round, then vrnic on both ends (selftests/interop_hosts.sh; not part of
# check: three pairs of boots).
interop-hosts: deps
	$(MAKE) all
	selftests/vm/pair.sh "$(CURDIR)/selftests/interop_hosts.sh peer" \
		"$(CURDIR)/selftests/interop_hosts.sh main vrnic rxe"
	selftests/vm/pair.sh "$(CURDIR)/selftests/interop_hosts.sh peer" \
		"$(CURDIR)/selftests/interop_hosts.sh main rxe vrnic"
	selftests/vm/pair.sh "$(CURDIR)/selftests/interop_hosts.sh peer" \
		"$(CURDIR)/selftests/interop_hosts.sh main vrnic vrnic"

lint: ksrc
	$(KSRC)/checkpatch.pl --no-tree --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f $$(git ls-files 'kmod/*.c' 'kmod/*.h' 'uapi/*.h' \
			'selftests/widen/*.c')
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod C=2 CF="-D__CHECK_ENDIAN__" \
		modules > $(BUILD)/sparse.log 2>&1
	@if grep -E '(warning|error):' $(BUILD)/sparse.log; then \
		echo "Error: sparse reported problems (see build/sparse.log)." >&2; \
		exit 1; fi
	clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.hpp' '*.cc' '*.h' | \
		grep -E '^(libctl|ctl)/|^kmod/tests/.*\.cpp$$')

# DKMS_TREE/DKMS_SOURCES default to the system's trees; "make check" points
# them into build/ to build the DKMS package on the host (quick) and only
# install it inside the VM (selftests/dkms.sh).
DKMS_SOURCES ?= /usr/src
DKMS_TREE ?= /var/lib/dkms
DKMS_OPTS = --dkmstree $(DKMS_TREE) --sourcetree $(DKMS_SOURCES) \
	--kernelsourcedir $(KDIR)
DKMS_SRC = $(DKMS_SOURCES)/vrnic-$(VERSION)

dkms-build:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)/kmod $(DKMS_SRC)/uapi $(DKMS_TREE)
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	cp kmod/Kbuild kmod/Makefile kmod/*.c kmod/*.h $(DKMS_SRC)/kmod/
	cp uapi/*.h $(DKMS_SRC)/uapi/
	dkms remove vrnic/$(VERSION) --all $(DKMS_OPTS) >/dev/null 2>&1 || true
	dkms add vrnic/$(VERSION) $(DKMS_OPTS)
	dkms build vrnic/$(VERSION) -k $(KVER) $(DKMS_OPTS)

dkms-install: deps dkms-build
	dkms install vrnic/$(VERSION) -k $(KVER) --force $(DKMS_OPTS)

# For selftests/dkms.sh: the real DKMS package, built and installed with
# dkms into a staging root under build/dkms/ (a symlink copy of this
# kernel's module tree, indexed with depmod), so the VM only has to copy
# the result in.  The host's /lib/modules is not touched.
# MODTREE is the kernel's installed module tree; the debug kernel
# (selftests/vm/debug-kernel.sh) passes its own, with KVER and KDIR.
DKMS_STAGE := $(BUILD)/dkms
MODTREE ?= /lib/modules/$(KVER)
dkms-stage: DKMS_SOURCES = $(DKMS_STAGE)/src
dkms-stage: DKMS_TREE = $(DKMS_STAGE)/tree
dkms-stage:
	$(MAKE) dkms-build DKMS_SOURCES=$(DKMS_SOURCES) DKMS_TREE=$(DKMS_TREE)
	rm -rf $(DKMS_STAGE)/root/lib/modules/$(KVER)
	mkdir -p $(DKMS_STAGE)/root/lib/modules/$(KVER)
	cp -as $(MODTREE)/kernel $(DKMS_STAGE)/root/lib/modules/$(KVER)/
	cp $(MODTREE)/modules.order $(MODTREE)/modules.builtin* \
		$(DKMS_STAGE)/root/lib/modules/$(KVER)/
	dkms install vrnic/$(VERSION) -k $(KVER) --force --no-depmod \
		$(DKMS_OPTS) --installtree $(DKMS_STAGE)/root/lib/modules
	depmod -b $(DKMS_STAGE)/root $(KVER)

install: cpp
	cmake --install $(CMAKE_BUILD)

# The packages are built from a copy of the tracked files (so the result
# does not depend on what else lies in this tree) under build/deb/, where
# dpkg-buildpackage also leaves the .deb, .changes and source files; lintian
# must then report no error and no warning.  DEB_VERSION overrides the
# version (a new changelog entry in the copy only), for upgrade tests.
DEB_DIR := $(BUILD)/deb
DEB_VERSION ?= $(VERSION)
deb:
	rm -rf $(DEB_DIR)/vrnic-$(DEB_VERSION)
	mkdir -p $(DEB_DIR)/vrnic-$(DEB_VERSION)
	git ls-files -z | xargs -0 cp -a --parents -t $(DEB_DIR)/vrnic-$(DEB_VERSION)
	if [ "$(DEB_VERSION)" != "$(VERSION)" ]; then \
		cd $(DEB_DIR)/vrnic-$(DEB_VERSION) && \
		DEBFULLNAME="vrnic developers" DEBEMAIL=dev@vrnic.invalid \
		dch -b -v $(DEB_VERSION) -D unstable "Test build $(DEB_VERSION)."; fi
	cd $(DEB_DIR)/vrnic-$(DEB_VERSION) && \
		DEB_BUILD_OPTIONS="parallel=$$(nproc) $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage --no-sign -us -uc
	lintian --fail-on error,warning --info --display-info \
		$(DEB_DIR)/vrnic_$(DEB_VERSION)_$$(dpkg --print-architecture).changes
	@ls -l $(DEB_DIR)/*_$(DEB_VERSION)_*.deb

# What selftests/packages.sh installs in the VM: the packages at this
# version and at a later one, to upgrade to.
deb-test:
	$(MAKE) deb
	$(MAKE) deb DEB_VERSION=$(VERSION)+upgrade1 DEB_BUILD_OPTIONS=nocheck

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/widen clean
	rm -rf $(BUILD)
