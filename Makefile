# vrnic top-level Makefile.
#
#   make              build kmod/vrnic.ko and the C++ parts (libctl, rdmactl)
#   make deps         install the Debian packages the project needs (as root)
#   make check        host unit tests + module build + VM selftests (TAP)
#   make demo         boot a VM and show vrnic working
#   make bench        perftest, vrnic vs rdma_rxe in one VM boot (ratios)
#   make lint         checkpatch --strict + sparse on kmod, clang-format on C++
#   make dkms-install add/build/install the module with DKMS
#   make install      install rdmactl, its man page and bash completion

VERSION := 0.1
KVER ?= $(shell ls /lib/modules 2>/dev/null | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
KSRC_TAR ?= /usr/src/linux-source-6.1.tar.xz
KSRC := $(BUILD)/ksrc
CMAKE_BUILD := $(BUILD)/cmake

export KVER KDIR

DEB_PKGS := build-essential make cmake g++ pkg-config kmod cpio xz-utils \
	rsync bc flex bison libelf-dev \
	rdma-core libibverbs-dev librdmacm-dev ibverbs-utils ibverbs-providers \
	rdmacm-utils perftest \
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev \
	libcli11-dev nlohmann-json3-dev googletest libgtest-dev clang-format \
	dkms qemu-system-x86 busybox-static \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
	sparse fio nvme-cli iproute2 util-linux procps

.PHONY: all kmod cpp selftests deps check demo bench lint dkms-install \
	dkms-build dkms-stage install clean ksrc

all: kmod cpp selftests

kmod:
	@test -d "$(KDIR)" || { echo "Error: no kernel build tree at $(KDIR) (run 'make deps')." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules

cpp:
	cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(CMAKE_BUILD) -j$$(nproc)

selftests: ksrc
	$(MAKE) -C selftests KSRC=$(KSRC) OUT=$(BUILD)/selftests

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

demo: deps
	$(MAKE) all
	selftests/vm/vm.sh demo

bench: deps
	$(MAKE) all
	selftests/vm/vm.sh bench

lint: ksrc
	$(KSRC)/checkpatch.pl --no-tree --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f $$(git ls-files 'kmod/*.c' 'kmod/*.h' 'uapi/*.h')
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod C=2 CF="-D__CHECK_ENDIAN__" \
		modules > $(BUILD)/sparse.log 2>&1
	@if grep -E '(warning|error):' $(BUILD)/sparse.log; then \
		echo "Error: sparse reported problems (see build/sparse.log)." >&2; \
		exit 1; fi
	clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.hpp' '*.cc' '*.h' | grep -E '^(libctl|ctl)/')

# DKMS_TREE/DKMS_SOURCES default to the system's trees; "make check" points
# them into build/ to build the DKMS package on the host (quick) and only
# install it inside the VM (selftests/dkms.sh).
DKMS_SOURCES ?= /usr/src
DKMS_TREE ?= /var/lib/dkms
DKMS_OPTS = --dkmstree $(DKMS_TREE) --sourcetree $(DKMS_SOURCES)
DKMS_SRC = $(DKMS_SOURCES)/vrnic-$(VERSION)

dkms-build:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)/kmod $(DKMS_SRC)/uapi $(DKMS_TREE)
	cp dkms.conf $(DKMS_SRC)/
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
DKMS_STAGE := $(BUILD)/dkms
dkms-stage:
	$(MAKE) dkms-build DKMS_SOURCES=$(DKMS_STAGE)/src DKMS_TREE=$(DKMS_STAGE)/tree
	rm -rf $(DKMS_STAGE)/root
	mkdir -p $(DKMS_STAGE)/root/lib/modules/$(KVER)
	cp -as /lib/modules/$(KVER)/kernel $(DKMS_STAGE)/root/lib/modules/$(KVER)/
	cp /lib/modules/$(KVER)/modules.order /lib/modules/$(KVER)/modules.builtin* \
		$(DKMS_STAGE)/root/lib/modules/$(KVER)/
	dkms install vrnic/$(VERSION) -k $(KVER) --force --no-depmod \
		--dkmstree $(DKMS_STAGE)/tree --sourcetree $(DKMS_STAGE)/src \
		--installtree $(DKMS_STAGE)/root/lib/modules
	depmod -b $(DKMS_STAGE)/root $(KVER)

install: cpp
	cmake --install $(CMAKE_BUILD)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	rm -rf $(BUILD)
