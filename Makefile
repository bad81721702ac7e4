# gnnref -- the one build entry (DESIGN.md section 7).
#   make            build/libgnnref.a and build/bin/gnnref
#   make run        train GraphSAGE on the built-in dataset
#   make check      oracle, sanitizer run, Check suites; non-zero exit on any failure
#   make bench      build/bin/gnnref-bench (Google Benchmark over the oracle registry) and run it
#   make coverage   HTML line coverage in build/coverage/
#   make sanitize   ASan + UBSan build and tests (part of make check)
#   make tsan       ThreadSanitizer build, the simulator's threads (part of make check)
#   make install    PREFIX=/usr/local: library, headers, tool, pkg-config file
# Options: NO_CUDA=1, NO_MPI=1, NO_OPENMP=1, NATIVE=1 (-march=native for opt/), V=1.

PREFIX  ?= /usr/local
BUILD   ?= build
CC      ?= cc
CXX     ?= c++
VERSION := 0.1.0

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- dependencies: install missing Debian packages (ci/install-deps.sh) before reading flags --
ifeq ($(filter clean,$(MAKECMDGOALS)),)
DEPS_MISSING := $(shell { printf '\#include <check.h>\n\#include <json-c/json.h>\n\#include <zlib.h>\n\#include <metis.h>\n\#include <cblas.h>\n' | $(CC) -x c -E - >/dev/null 2>&1 && printf '\#include <benchmark/benchmark.h>\n' | $(CXX) -x c++ -E - >/dev/null 2>&1 && command -v pkg-config >/dev/null && command -v lcov >/dev/null && command -v python3 >/dev/null && { [ "$(NO_MPI)" = 1 ] || command -v mpirun >/dev/null; }; } || echo 1)
ifeq ($(DEPS_MISSING),1)
$(info make: required headers or tools are missing; running ci/install-deps.sh)
DEPS_RC := $(shell bash ci/install-deps.sh >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error ci/install-deps.sh failed (exit $(DEPS_RC)); install the packages it names and retry)
endif
endif
endif

# ---- feature detection -------------------------------------------------------------
HAVE_OPENMP := $(shell [ "$(NO_OPENMP)" = 1 ] || (echo 'int main(void){return 0;}' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo 1))
HAVE_CUDA   := $(shell [ "$(NO_CUDA)" = 1 ] || (command -v nvcc >/dev/null 2>&1 && echo 1))
HAVE_MPI    := $(shell [ "$(NO_MPI)" = 1 ] || (command -v mpicc >/dev/null 2>&1 && echo 1))

# -ffp-contract=off everywhere: no fused multiply-add contraction, so ref and opt round alike.
# Never any fast-math flag (the bitwise oracles depend on IEEE semantics).
CSTD     := -std=c11 -D_GNU_SOURCE
WARN     := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
BASEFLAGS := -g -ffp-contract=off -fno-strict-aliasing -Iinclude -I. $(COVFLAGS)
CFLAGS_REF := $(CSTD) $(WARN) -O2 $(BASEFLAGS)
CFLAGS_OPT := $(CSTD) $(WARN) -O3 $(BASEFLAGS) $(if $(filter 1,$(NATIVE)),-march=native,)
DEFS := -DGNN_VERSION=\"$(VERSION)\"
ifeq ($(HAVE_OPENMP),1)
OMPFLAGS := -fopenmp
DEFS += -DGNN_HAVE_OPENMP=1
endif
ifeq ($(HAVE_CUDA),1)
DEFS += -DGNN_HAVE_CUDA_BUILD=1
endif
ifeq ($(HAVE_MPI),1)
DEFS += -DGNN_HAVE_MPI_BUILD=1
endif

PKG_CFLAGS := $(shell pkg-config --cflags check json-c zlib 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs json-c zlib 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
# OpenBLAS (libopenblas-dev): cblas_sgemm for the cpu UPDATE (opt/cpu/update.c)
BLAS_LIBS := -lopenblas
# METIS 5 (libmetis-dev): METIS_PartGraphKway for gnnref partition (core/partition.c)
METIS_LIBS := -lmetis
# OpenMPI (opt/mpi/ only): the compile and link flags mpicc would add
ifeq ($(HAVE_MPI),1)
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
endif
LIBS := $(PKG_LIBS) $(BLAS_LIBS) $(METIS_LIBS) $(MPI_LIBS) $(OMPFLAGS) -lpthread -lm

# ---- sources -----------------------------------------------------------------------
CORE_SRC   := $(sort $(wildcard core/*.c))
REF_SRC    := $(sort $(wildcard ref/*.c))
OPT_SRC    := $(sort $(wildcard opt/cpu/*.c))
SIM_SRC    := $(sort $(wildcard sim/*.c))
MPI_SRC    := $(sort $(wildcard opt/mpi/*.c))
ORACLE_SRC := $(sort $(wildcard oracle/*.c))
CLI_SRC    := $(sort $(wildcard cli/*.c))
TEST_SRC   := $(sort $(wildcard tests/*.c))
BENCH_C    := $(sort $(wildcard bench/*.c))
BENCH_CC   := $(sort $(wildcard bench/*.cc))

LIB_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o) $(REF_SRC:%.c=$(BUILD)/obj/%.o) \
           $(OPT_SRC:%.c=$(BUILD)/obj/%.o) $(ORACLE_SRC:%.c=$(BUILD)/obj/%.o) \
           $(SIM_SRC:%.c=$(BUILD)/obj/%.o) $(MPI_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
BENCH_OBJ := $(BENCH_C:%.c=$(BUILD)/obj/%.o) $(BENCH_CC:%.cc=$(BUILD)/obj/%.o)

LIB   := $(BUILD)/libgnnref.a
TOOL  := $(BUILD)/bin/gnnref
TESTS := $(BUILD)/bin/gnnref-tests
BENCH := $(BUILD)/bin/gnnref-bench

.PHONY: all run check bench coverage sanitize tsan install clean
all: $(TOOL)

$(BUILD)/obj/ref/%.o: ref/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_REF) $(DEFS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/opt/mpi/%.o: opt/mpi/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(DEFS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(DEFS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	$(Q)$(CXX) -std=c++17 -O2 -g -Iinclude -I. $(DEFS) $(COVFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(TOOL): $(CLI_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(CLI_OBJ) $(LIB) $(LIBS) -o $@

# The Check suites: every tests/test_*.c defines `Suite *suite_<name>(void)`; the list of
# suites is generated so that adding a file is enough.
$(BUILD)/gen/suites.h: $(TEST_SRC)
	@mkdir -p $(dir $@)
	$(Q)grep -ho '^Suite \*suite_[a-z0-9_]*(void)' $(TEST_SRC) | sed 's/Suite \*\(suite_[a-z0-9_]*\)(void)/X(\1)/' > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/tests/main.o: $(BUILD)/gen/suites.h
$(BUILD)/obj/tests/%.o: CFLAGS_OPT += -I$(BUILD)/gen
$(TESTS): $(TEST_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(TEST_OBJ) $(LIB) $(CHECK_LIBS) $(LIBS) -o $@

$(BENCH): $(BENCH_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CXX) $(OMPFLAGS) $(BENCH_OBJ) $(LIB) -lbenchmark -lpthread $(LIBS) -o $@

# ---- top-level jobs ----------------------------------------------------------------------
RUN_ARGS ?= --data builtin --model sage --layers 2 --epochs 10
run: $(TOOL)
	$(TOOL) train $(RUN_ARGS)

# CK_DEFAULT_TIMEOUT: per-case limit; cases that need longer set their own.
# OMP_WAIT_POLICY=passive: idle OpenMP threads sleep instead of spinning, so the many tiny
# threaded oracle cases do not slow to a crawl when the machine is shared (timings are not
# tests; benchmarks keep the default policy).
check: export OMP_WAIT_POLICY = passive
check: $(TOOL) $(TESTS)
	@echo "== oracle (every registry entry, every implementation in this build) =="
	$(Q)$(TOOL) oracle --cases 3
	@echo "== AddressSanitizer + UBSan build: oracle and Check suites (ci/sanitize.sh) =="
	$(Q)bash ci/sanitize.sh
	@echo "== ThreadSanitizer build: the simulator's threads (ci/tsan.sh) =="
	$(Q)bash ci/tsan.sh
	@echo "== Check suites =="
	$(Q)CK_DEFAULT_TIMEOUT=60 GNN_TOOL=$(TOOL) $(TESTS)
	@echo "== MPI vs simulator (ci/mpi-check.sh) =="
	$(Q)bash ci/mpi-check.sh $(TOOL)

# AddressSanitizer + UBSan build in build/asan, oracle and Check suites (ci/sanitize.sh)
sanitize:
	$(Q)bash ci/sanitize.sh

# ThreadSanitizer build in build/tsan: the simulator's rank threads (ci/tsan.sh)
tsan:
	$(Q)bash ci/tsan.sh

bench: $(BENCH)
	$(BENCH) $(BENCH_ARGS)

coverage:
	$(Q)$(MAKE) --no-print-directory clean BUILD=$(BUILD)/cov
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/cov COVFLAGS="--coverage -O0" $(BUILD)/cov/bin/gnnref $(BUILD)/cov/bin/gnnref-tests
	$(Q)$(BUILD)/cov/bin/gnnref oracle --cases 3 >/dev/null
	$(Q)CK_DEFAULT_TIMEOUT=240 CK_EXCLUDE_TAGS=slow GNN_TOOL=$(BUILD)/cov/bin/gnnref $(BUILD)/cov/bin/gnnref-tests | tail -1
	$(Q)lcov --quiet --capture --directory $(BUILD)/cov/obj --output-file $(BUILD)/cov/all.info --rc lcov_branch_coverage=0 2>/dev/null
	$(Q)lcov --quiet --extract $(BUILD)/cov/all.info '*/core/*' '*/ref/*' '*/opt/*' '*/sim/*' '*/oracle/*' '*/cli/*' -o $(BUILD)/cov/gnnref.info 2>/dev/null
	$(Q)genhtml --quiet $(BUILD)/cov/gnnref.info -o $(BUILD)/coverage
	@echo "coverage report: $(BUILD)/coverage/index.html"
	$(Q)for d in core ref opt sim oracle cli; do \
	  lcov --quiet --extract $(BUILD)/cov/gnnref.info "*/$$d/*" -o $(BUILD)/cov/$$d.info 2>/dev/null; \
	  printf '%-8s ' $$d; lcov --summary $(BUILD)/cov/$$d.info 2>&1 | grep -E 'lines' ; done
	$(Q)printf 'total    '; lcov --summary $(BUILD)/cov/gnnref.info 2>&1 | grep -E 'lines'

install: $(TOOL)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/gnnref $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/gnnref/*.h $(DESTDIR)$(PREFIX)/include/gnnref/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS@|$(PKG_LIBS) $(BLAS_LIBS) $(METIS_LIBS) $(MPI_LIBS) $(OMPFLAGS) -lpthread -lm|' \
	    gnnref.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gnnref.pc

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
