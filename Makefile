# gnnref -- the one build entry (DESIGN.md section 7; docs/building.md says it all at length).
#   make              build/libgnnref.a, build/libgnnref.so (soname libgnnref.so.0) and
#                     build/bin/gnnref; needs only json-c, zlib, METIS, OpenBLAS (OpenMP and
#                     MPI when present)
#   make run          train GraphSAGE on the built-in dataset
#   make check        the fast tier (under 5 minutes on 2 cores): the oracle at one case per
#                     preset at 1 and 2 threads, a stress run of the entries with atomics, the
#                     Check suites without `slow`, a short MPI check, the install check, the
#                     doc checks, the size check, the mutants' check, the layering check
#   make check-full   the full tier (what .ci/run runs): the oracle's full presets, ASan+UBSan,
#                     TSan (the simulator's threads, and the OpenMP kernels with clang and
#                     archer), a NO_OPENMP=1 build and its suites, the slow suites too, the
#                     whole MPI check, each fuzzer for 60 s, resume under mpirun, the plugin
#                     ABI, the install, doc, size, mutants' and layering checks
#                     (make -j2 check-full overlaps the stages; each logs to build/logs/)
#   make bench        build/bin/gnnref-bench (Google Benchmark over the oracle registry) and run it
#   make bench-peers  gnnref side by side with DGL and PyTorch (bench/peers/; not in any check
#                     tier): a Python environment outside the tree (PEERS_VENV, default
#                     ~/.cache/gnnref-peers) from the package registry, SKIP when unreachable;
#                     the ratio table and build/peers/report.json; PEERS_ARGS=--quick to try it
#   make bench-busy   1 against 2 threads under one background busy loop (bench/busy.sh)
#   make gpu-bench    build/bin/gnnref-gpu-bench (CUDA builds: aggregation vs cuSPARSE, copy
#                     bandwidth, quant pack); ci/gpu-check.sh runs it with the CUDA oracle
#   make coverage     HTML line coverage in build/coverage/
#   make sanitize     ASan + UBSan build and run (ci/sanitize.sh; a stage of check-full)
#   make tsan         ThreadSanitizer build and run (ci/tsan.sh; a stage of check-full)
#   make fuzz         libFuzzer harnesses of every reader of outside bytes, clang with ASan and
#                     UBSan, in build/fuzz/ (fuzz/, docs/fuzzing.md; check-full runs each for
#                     60 s from fuzz/corpus/: ci/fuzz.sh)
#   make install      PREFIX=/usr/local: libraries, headers, tool, pkg-config file
#   make uninstall    PREFIX=/usr/local: removes what install put there
# Options: NO_CUDA=1, NO_MPI=1, NO_OPENMP=1, NATIVE=1 (-march=native for opt/), V=1,
#          PREFIX=..., DESTDIR=..., BUILD=... (the build folder, default build).

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BUILD   ?= build
CC      ?= cc
CXX     ?= c++
VERSION := 0.1.0
SOVERSION := 0
.DEFAULT_GOAL := all

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- which goals build what ----------------------------------------------------------------
GOALS := $(if $(MAKECMDGOALS),$(MAKECMDGOALS),all)
# goals that compile nothing and need no dependency
NOBUILD_GOALS := clean uninstall help
BUILDING := $(filter-out $(NOBUILD_GOALS),$(GOALS))
TEST_GOALS := check check-% tests sanitize tsan coverage %gnnref-tests
TIER_GOALS := check check-full

# ---- dependencies: each goal checks for what it needs (ci/install-deps.sh --missing) and
# installs the missing Debian packages with ci/install-deps.sh, or says what is missing.
#   build: json-c, zlib, METIS, OpenBLAS, pkg-config (every goal that compiles)
#   test: Check, python3 (the tiers, sanitize, tsan, coverage); mpi: OpenMPI, optional;
#   plot: gnuplot (gnnref plot and its test), optional
#   bench: Google Benchmark; coverage: lcov; tsan-omp: clang and LLVM's libomp with archer
#   (check-full's check-tsan-omp stage); fuzz: clang and its libFuzzer runtime (make fuzz,
#   check-full's check-fuzz stage)
# Sub-makes of the tiers (ci/sanitize.sh, ci/tsan.sh, ci/install-check.sh) inherit
# GNN_DEPS_CHECKED=1 and skip the check.
ifneq ($(GNN_DEPS_CHECKED),1)
DEP_GROUPS := $(strip $(if $(BUILDING),build) \
    $(if $(filter $(TEST_GOALS),$(GOALS)),test plot $(if $(filter 1,$(NO_MPI)),,mpi)) \
    $(if $(filter bench bench-peers %gnnref-bench,$(GOALS)),bench) \
    $(if $(filter coverage,$(GOALS)),coverage) \
    $(if $(filter check-full check-tsan-omp,$(GOALS)),tsan-omp) \
    $(if $(filter fuzz check-full check-fuzz,$(GOALS)),fuzz))
ifneq ($(DEP_GROUPS),)
DEPS_MISSING := $(shell CC='$(CC)' CXX='$(CXX)' bash ci/install-deps.sh --missing $(DEP_GROUPS))
ifneq ($(DEPS_MISSING),)
$(info make: missing for '$(GOALS)': $(DEPS_MISSING); running ci/install-deps.sh $(DEPS_MISSING))
DEPS_RC := $(shell bash ci/install-deps.sh $(DEPS_MISSING) >&2; echo $$?)
DEPS_STILL := $(shell CC='$(CC)' CXX='$(CXX)' bash ci/install-deps.sh --missing $(DEPS_MISSING))
ifneq ($(filter-out mpi plot,$(DEPS_STILL)),)
DEPS_EXPLAINED := $(shell CC='$(CC)' CXX='$(CXX)' bash ci/install-deps.sh --explain $(filter-out mpi plot,$(DEPS_STILL)) >&2)
$(error still missing for '$(GOALS)' after ci/install-deps.sh (exit $(DEPS_RC)): $(filter-out mpi plot,$(DEPS_STILL)), see above)
endif
ifneq ($(filter mpi,$(DEPS_STILL)),)
$(warning OpenMPI (mpicc, mpirun) is missing and could not be installed: building without the MPI backend; the MPI checks say SKIP)
endif
ifneq ($(filter plot,$(DEPS_STILL)),)
$(warning gnuplot is missing and could not be installed: gnnref plot refuses with a message and its drawing test says SKIP)
endif
endif
endif
export GNN_DEPS_CHECKED := 1
endif

# ---- feature detection (only for goals that compile) ---------------------------------------
ifneq ($(BUILDING),)
HAVE_OPENMP := $(shell [ "$(NO_OPENMP)" = 1 ] || (echo 'int main(void){return 0;}' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo 1))
# nvcc: on the PATH, else $(CUDA_HOME)/bin, else /usr/local/cuda/bin (NVCC=... names one)
ifeq ($(origin NVCC),undefined)
NVCC := $(shell [ "$(NO_CUDA)" = 1 ] || command -v nvcc 2>/dev/null || \
    for n in "$(CUDA_HOME)/bin/nvcc" /usr/local/cuda/bin/nvcc; do [ -x "$$n" ] && echo "$$n" && break; done)
endif
HAVE_CUDA   := $(shell [ "$(NO_CUDA)" = 1 ] || ([ -n "$(NVCC)" ] && "$(NVCC)" --version >/dev/null 2>&1 && echo 1))
HAVE_MPI    := $(shell [ "$(NO_MPI)" = 1 ] || (command -v mpicc >/dev/null 2>&1 && echo 1))
# -fno-semantic-interposition: with -fPIC the library's calls to its own functions stay direct
# (and inlinable), as in a non-PIC build
NO_INTERPOSE := $(shell echo 'int x;' | $(CC) -fno-semantic-interposition -x c -c - -o /dev/null 2>/dev/null && echo -fno-semantic-interposition)
endif

# -ffp-contract=off everywhere: no fused multiply-add contraction, so ref and opt round alike.
# Never any fast-math flag (the bitwise oracles depend on IEEE semantics).
# -fPIC everywhere: the same objects make the static and the shared library.
CSTD     := -std=c11 -D_GNU_SOURCE
WARN     := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
BASEFLAGS := -g -ffp-contract=off -fno-strict-aliasing -fPIC $(NO_INTERPOSE) -Iinclude -I. $(COVFLAGS)
# without OpenMP the compiler ignores the omp pragmas by design: no warning for each
WARN += $(if $(filter 1,$(HAVE_OPENMP)),,-Wno-unknown-pragmas)
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
# opt/mpi/ alone sees whether OpenMPI is there (its flags stamp: below)
ifeq ($(HAVE_MPI),1)
MPI_DEFS := -DGNN_HAVE_MPI_BUILD=1
endif

ifneq ($(BUILDING),)
PKG_CFLAGS := $(shell pkg-config --cflags json-c zlib 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs json-c zlib 2>/dev/null)
# Check (the test binary only)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
endif
# OpenBLAS (libopenblas-dev): cblas_sgemm for the cpu UPDATE (opt/cpu/update.c)
BLAS_LIBS := -lopenblas
# METIS 5 (libmetis-dev): METIS_PartGraphKway for gnnref partition (core/dist/partition.c)
METIS_LIBS := -lmetis
# OpenMPI (opt/mpi/ only): the compile and link flags mpicc would add
ifeq ($(HAVE_MPI),1)
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
endif
# CUDA (opt/cuda/*.cu, docs/cuda.md): nvcc compiles the kernels for sm_90 (H100, H200) plus
# compute_90 PTX that newer cards JIT (CUDA_GENCODE=... for other cards). Device float math
# rounds like ref: --fmad=false (no FMA contraction), IEEE division and square root, no
# flush-to-zero, never --use_fast_math; the host side gets -ffp-contract=off like every C file.
# The runtime is linked statically (cudart_static), so the binaries run where only the driver
# is installed (and report SKIP where there is none).
ifeq ($(HAVE_CUDA),1)
CUDA_ROOT    := $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))
CUDA_LIBDIR  := $(firstword $(wildcard $(CUDA_ROOT)/lib64/libcudart_static.a $(CUDA_ROOT)/targets/*/lib/libcudart_static.a))
CUDA_LIBDIR  := $(if $(CUDA_LIBDIR),$(patsubst %/,%,$(dir $(CUDA_LIBDIR))),$(CUDA_ROOT)/lib64)
CUDA_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCCFLAGS := -std=c++17 -O3 -g -lineinfo --fmad=false --ftz=false --prec-div=true --prec-sqrt=true \
    $(CUDA_GENCODE) -Xcompiler -fPIC,-ffp-contract=off,-fno-strict-aliasing -Iinclude -I. \
    -Wno-deprecated-gpu-targets
CUDA_LIBS := -L$(CUDA_LIBDIR) -lcudart_static -lstdc++ -ldl -lrt -lpthread
# cuSPARSE: the GPU benchmark alone (bench/gpu_bench_agg.cu); without it that column says SKIP
ifneq ($(wildcard $(CUDA_LIBDIR)/libcusparse.so),)
CUSPARSE_LIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcusparse
endif
endif
# what the library needs besides json-c and zlib (the pkg-config file's Libs.private)
PRIVATE_LIBS := $(BLAS_LIBS) $(METIS_LIBS) $(MPI_LIBS) $(CUDA_LIBS) $(OMPFLAGS) -lpthread -lm
LIBS := $(PKG_LIBS) $(PRIVATE_LIBS)

# ---- sources -----------------------------------------------------------------------
# core/ in rooms by meaning (docs/architecture.md, ci/layering.py): base (status, tensors, RNG,
# CRC32C, team, timer, CSR graph), ops (the checked entry points of the kernel tables and the
# rules ref/ and opt/ share), dist (communication, partitioning, halo, kvstore, distributed
# sampling and aggregation), api (the implementation context: the one room that names ref/ and
# opt/ tables), io (formats, importers, generators, partition files, checkpoints: after api, a
# checkpoint names the context), train (models, the epoch loop, trainers). Each room depends
# only on rooms before it in this list; ref/ and opt/ sit between dist and api.
CORE_ROOMS := base ops dist api io train
CORE_SRC   := $(sort $(foreach r,$(CORE_ROOMS),$(wildcard core/$(r)/*.c)))
REF_SRC    := $(sort $(wildcard ref/*.c))
OPT_SRC    := $(sort $(wildcard opt/cpu/*.c))
# the CUDA tier's C side, built everywhere: the emulator and the cuda-emu implementations
# (opt/cuda/emu.h, docs/cuda.md); the .cu kernels are built by nvcc when it is found.
# opt/cuda/*_nocuda.c are built only without nvcc: the `cuda` tables as stubs and
# gnn_cuda_available saying "built without CUDA", so the oracle says SKIP.
CUDA_EMU_SRC := $(sort $(wildcard opt/cuda/*.c))
ifeq ($(HAVE_CUDA),1)
CUDA_EMU_SRC := $(filter-out %_nocuda.c,$(CUDA_EMU_SRC))
CUDA_SRC   := $(sort $(wildcard opt/cuda/*.cu))
endif
SIM_SRC    := $(sort $(wildcard sim/*.c))
MPI_SRC    := $(sort $(wildcard opt/mpi/*.c))
ORACLE_SRC := $(sort $(wildcard oracle/*.c))
CLI_SRC    := $(sort $(wildcard cli/*.c))
TEST_SRC   := $(sort $(wildcard tests/*.c))
BENCH_C    := $(sort $(wildcard bench/*.c))
BENCH_CC   := $(sort $(wildcard bench/*.cc))
HEADERS    := $(sort $(wildcard include/gnnref/*.h))

LIB_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o) $(REF_SRC:%.c=$(BUILD)/obj/%.o) \
           $(OPT_SRC:%.c=$(BUILD)/obj/%.o) $(ORACLE_SRC:%.c=$(BUILD)/obj/%.o) \
           $(SIM_SRC:%.c=$(BUILD)/obj/%.o) $(MPI_SRC:%.c=$(BUILD)/obj/%.o) \
           $(CUDA_EMU_SRC:%.c=$(BUILD)/obj/%.o) $(CUDA_SRC:%.cu=$(BUILD)/obj/%.cu.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
BENCH_OBJ := $(BENCH_C:%.c=$(BUILD)/obj/%.o) $(BENCH_CC:%.cc=$(BUILD)/obj/%.o)

LIB    := $(BUILD)/libgnnref.a
SONAME := libgnnref.so.$(SOVERSION)
SHLIB  := $(BUILD)/libgnnref.so.$(VERSION)
SHLINKS := $(BUILD)/$(SONAME) $(BUILD)/libgnnref.so
TOOL   := $(BUILD)/bin/gnnref
TESTS  := $(BUILD)/bin/gnnref-tests
BENCH  := $(BUILD)/bin/gnnref-bench
GPU_BENCH := $(BUILD)/bin/gnnref-gpu-bench

# ---- the flags stamps: a change of flags (NATIVE=1, NO_OPENMP=1, COVFLAGS, a new compiler,
# ...) rebuilds everything. $(BUILD)/flags.stamp holds the effective compile flags; it is
# rewritten only when they differ from what it holds, and every object and link depends on it.
# Two more do the same for what only some targets read, so that installing a package rebuilds
# only those: $(BUILD)/flags-check.stamp, Check's flags (the test objects); and
# $(BUILD)/flags-link.stamp, the libraries the links name and OpenMPI's compile flags (every
# link, and the objects of opt/mpi/). `make run` installs the build's packages and `make check`
# then adds Check and OpenMPI: without these two stamps the whole tree was built twice.
FLAGS_STAMP := $(BUILD)/flags.stamp
FLAGS_NOW := $(strip CC=$(CC) CXX=$(CXX) REF: $(CFLAGS_REF) OPT: $(CFLAGS_OPT) $(OMPFLAGS) DEFS: $(DEFS) \
    PKG: $(PKG_CFLAGS) NVCC: $(NVCC) $(NVCCFLAGS))
CHECK_STAMP := $(BUILD)/flags-check.stamp
CHECK_NOW := $(strip CHECK: $(CHECK_CFLAGS) $(CHECK_LIBS))
LINK_STAMP := $(BUILD)/flags-link.stamp
LINK_NOW := $(strip MPI: $(MPI_DEFS) $(MPI_CFLAGS) LIBS: $(LIBS))
# (make -n records nothing: it shows the rebuild a changed stamp would cause)
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
# $(call write_stamp,FILE_VAR,CONTENT_VAR): the file rewritten when the content differs from
# what it holds (variable names, not values: the flags hold commas)
define write_stamp
ifneq ($$($(2)),$$(strip $$(file < $$($(1)))))
ifeq ($$(DRY_RUN),)
$$(shell mkdir -p $$(BUILD))
$$(file > $$($(1)),$$($(2)))
else
.PHONY: $$($(1))
endif
endif
endef
ifneq ($(BUILDING),)
$(eval $(call write_stamp,FLAGS_STAMP,FLAGS_NOW))
$(eval $(call write_stamp,CHECK_STAMP,CHECK_NOW))
$(eval $(call write_stamp,LINK_STAMP,LINK_NOW))
endif
$(FLAGS_STAMP) $(CHECK_STAMP) $(LINK_STAMP): ;

.PHONY: all run tests check check-full bench bench-peers coverage sanitize tsan fuzz install uninstall clean help
all: $(TOOL) $(LIB) $(SHLIB) $(SHLINKS)
tests: $(TESTS)

$(BUILD)/obj/ref/%.o: ref/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_REF) $(DEFS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/opt/mpi/%.o: opt/mpi/%.c $(FLAGS_STAMP) $(LINK_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(DEFS) $(MPI_DEFS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/tests/%.o: tests/%.c $(FLAGS_STAMP) $(CHECK_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_OPT) -I$(BUILD)/gen $(OMPFLAGS) $(DEFS) $(PKG_CFLAGS) $(CHECK_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(DEFS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) $(DEFS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@
$(BUILD)/obj/%.o: %.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	$(Q)$(CXX) -std=c++17 -O2 -g -fPIC -Iinclude -I. $(DEFS) $(COVFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $(LIB_OBJ)

# the shared library: the same objects; -z defs: every symbol it uses resolved by its own
# dependencies (the pkg-config file then links it with -lgnnref alone)
$(SHLIB): $(LIB_OBJ) $(FLAGS_STAMP) $(LINK_STAMP)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,-z,defs $(CFLAGS_OPT) $(OMPFLAGS) $(LIB_OBJ) $(LIBS) -o $@
$(BUILD)/$(SONAME): $(SHLIB)
	$(Q)ln -sf $(notdir $<) $@
$(BUILD)/libgnnref.so: $(BUILD)/$(SONAME)
	$(Q)ln -sf $(notdir $<) $@

# the tool links the static library: build/bin/gnnref runs from anywhere
$(TOOL): $(CLI_OBJ) $(LIB) $(FLAGS_STAMP) $(LINK_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(CLI_OBJ) $(LIB) $(LIBS) -o $@

# The Check suites: every tests/test_*.c defines `Suite *suite_<name>(void)`; the list of
# suites is generated so that adding a file is enough.
$(BUILD)/gen/suites.h: $(TEST_SRC)
	@mkdir -p $(dir $@)
	$(Q)grep -ho '^Suite \*suite_[a-z0-9_]*(void)' $(TEST_SRC) | sed 's/Suite \*\(suite_[a-z0-9_]*\)(void)/X(\1)/' > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/tests/main.o: $(BUILD)/gen/suites.h
# the tests link the tool's objects too (not its main): tests/test_resume_flags.c walks the
# flag tables of `gnnref train` (cli_train_command) that parsing, help and the report read
TEST_CLI_OBJ := $(filter-out %/cli/main.o,$(CLI_OBJ))
$(TESTS): $(TEST_OBJ) $(TEST_CLI_OBJ) $(LIB) $(FLAGS_STAMP) $(CHECK_STAMP) $(LINK_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(TEST_OBJ) $(TEST_CLI_OBJ) $(LIB) $(CHECK_LIBS) $(LIBS) -o $@

$(BENCH): $(BENCH_OBJ) $(LIB) $(FLAGS_STAMP) $(LINK_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CXX) $(OMPFLAGS) $(BENCH_OBJ) $(LIB) -lbenchmark -lpthread $(LIBS) -o $@

# the GPU benchmarks (ci/gpu-check.sh, docs/cuda.md): CUDA builds only; cuSPARSE when found.
# One program from bench/*.cu (bench/gpu_bench.cu: main; one file per benchmark besides).
GPU_BENCH_OBJ := $(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(sort $(wildcard bench/*.cu)))
$(GPU_BENCH_OBJ): NVCCFLAGS += $(if $(CUSPARSE_LIBS),-DGNN_HAVE_CUSPARSE=1)
$(GPU_BENCH): $(GPU_BENCH_OBJ) $(LIB) $(FLAGS_STAMP) $(LINK_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_OPT) $(OMPFLAGS) $(GPU_BENCH_OBJ) $(LIB) $(CUSPARSE_LIBS) $(LIBS) -o $@
.PHONY: gpu-bench
ifeq ($(HAVE_CUDA),1)
gpu-bench: $(GPU_BENCH)
else
gpu-bench:
	@echo "gpu-bench: SKIP (built without CUDA: nvcc not found or NO_CUDA=1)"
endif

# ---- top-level jobs ----------------------------------------------------------------------
RUN_ARGS ?= --data builtin --model sage --layers 2 --epochs 10
run: $(TOOL)
	$(TOOL) train $(RUN_ARGS)

# ---- the test tiers (docs/building.md) -----------------------------------------------------
# Each stage is a target of its own, so that `make -jN check-full` overlaps them; each writes
# its output to $(LOGDIR)/STAGE.log and prints one line when it ends (ci/stage.sh). Under
# `make check` / `make check-full` every stage runs to the end, failed or not, and the tier
# ends with one line per stage and its verdict; the exit status is non-zero when any failed.
# A stage made on its own (make check-suites) exits with its own status.
#
# The oracle registry runs once natively and once under ASan per tier: `gnnref oracle`
# (check-oracle, check-oracle-full; check-asan-oracle at seeds 1000 and 1001), so the Check tcase
# that runs it again (tag `registry`, tests/test_oracle.c) is excluded. ci/oracle-check.sh
# asserts what that tcase asserts besides: every entry passes at least one case.
#
# CK_DEFAULT_TIMEOUT: per-case limit; cases that need longer set their own.
# OMP_WAIT_POLICY=passive: idle OpenMP threads sleep instead of spinning, so the many tiny
# threaded oracle cases do not slow to a crawl when the machine is shared (timings are not
# tests; benchmarks keep the default policy).
LOGDIR := $(BUILD)/logs
STAGE  := bash ci/stage.sh $(LOGDIR)
CHECK_STAGES := check-oracle check-stress check-suites check-mpi-quick check-install check-docs check-size \
    check-mutants check-layering
# longest first: under -jN make starts the stages in this order as job slots free up
FULL_STAGES  := check-slow check-tsan-omp check-fuzz check-asan-build check-asan-suites check-asan-oracle check-tsan \
    check-noomp check-oracle-full check-stress check-suites check-mpi check-resume check-install check-plugin check-docs \
    check-size check-mutants check-layering
STAGES := $(sort $(CHECK_STAGES) $(FULL_STAGES))
.PHONY: $(STAGES) check-asan
$(STAGES): export OMP_WAIT_POLICY = passive
ifneq ($(filter $(TIER_GOALS),$(GOALS)),)
TIER_T0 := $(shell date +%s)
endif
# the MPI checks skip (saying so) when this build has no MPI backend
MPI_SKIP := $(if $(filter 1,$(HAVE_MPI)),,1)

check: export GNN_STAGE_COLLECT = 1
# the fast tier leaves out the suites' tcases tagged "full" (integration runs of 5 to 15 s each,
# docs/building.md), which the full tier's check-suites, the sanitizer and no-OpenMP suites run,
# and stresses each racy entry half as many times as the full tier
check: SUITES_SKIP_TAGS := full
check: STRESS_RUNS := --quick
check: $(CHECK_STAGES)
	$(Q)bash ci/stage.sh --summary $(LOGDIR) check $(or $(TIER_T0),-) $(CHECK_STAGES)

check-full: export GNN_STAGE_COLLECT = 1
check-full: $(FULL_STAGES)
	$(Q)bash ci/stage.sh --summary $(LOGDIR) check-full $(or $(TIER_T0),-) $(FULL_STAGES)

# every registry entry, every implementation in this build: one seed per preset, threaded
# implementations at 1 and 2 threads (the full tier adds 4 and seeds 2 and 3)
check-oracle: $(TOOL)
	$(Q)$(STAGE) $@ bash ci/oracle-check.sh $(TOOL) --cases 1 --threads 1,2
check-oracle-full: $(TOOL)
	$(Q)$(STAGE) $@ bash ci/oracle-check.sh $(TOOL) --cases 3
# race hunting: the entries whose twins synchronize through atomics, each case run several
# times at 2, 4, 8 threads under noise threads (ci/oracle-stress.sh)
check-stress: $(TOOL)
	$(Q)$(STAGE) $@ bash ci/oracle-stress.sh $(TOOL) $(STRESS_RUNS)
# the Check suites but the slow ones (and the registry tcase: see above)
check-suites: $(TOOL) $(TESTS)
	$(Q)$(STAGE) $@ env CK_DEFAULT_TIMEOUT=60 CK_EXCLUDE_TAGS="slow registry $(SUITES_SKIP_TAGS)" GNN_TOOL=$(TOOL) $(TESTS)
# the slow ones: accuracy acceptance (Cora, Facebook, the builtin SBM on partitions)
check-slow: $(TOOL) $(TESTS)
	$(Q)$(STAGE) $@ env CK_DEFAULT_TIMEOUT=60 CK_INCLUDE_TAGS=slow GNN_TOOL=$(TOOL) $(TESTS)
# AddressSanitizer + UBSan build in $(BUILD)/asan (ci/sanitize.sh), then the oracle and the
# Check suites on it, two stages that can overlap; make check-asan: the three
check-asan: check-asan-oracle check-asan-suites
check-asan-build:
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/sanitize.sh build
check-asan-oracle: check-asan-build
	$(Q)$(STAGE) $@ --after check-asan-build env BUILD="$(BUILD)" bash ci/sanitize.sh oracle
check-asan-suites: check-asan-build
	$(Q)$(STAGE) $@ --after check-asan-build env BUILD="$(BUILD)" bash ci/sanitize.sh suites
# ThreadSanitizer build in $(BUILD)/tsan and its run: the simulator's threads
check-tsan:
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/tsan.sh
# ThreadSanitizer over the OpenMP kernels: clang, LLVM's libomp and its TSan tool archer, in
# $(BUILD)/tsan-omp; the oracle at 2 and 4 threads and two training epochs (ci/tsan-omp.sh)
check-tsan-omp:
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/tsan-omp.sh
# NO_OPENMP=1 build in $(BUILD)/noomp and the Check suites on it: every suite passes without
# OpenMP (ci/noomp-check.sh, docs/building.md)
check-noomp:
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/noomp-check.sh
# libFuzzer: make fuzz, then each harness 60 s from its seed corpus, two at a time; any crash,
# leak or timeout fails it (ci/fuzz.sh, docs/fuzzing.md)
check-fuzz:
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/fuzz.sh
# in the full tier the native build goes first, and every stage but check-slow waits for all
# of it (the test runner too): then the stages start in FULL_STAGES' order, the longest first.
# Without that wait, the stages that need only the tool (or nothing) took the job slots while
# the test runner was built, and check-slow started 25 minutes late behind them.
ifneq ($(filter check-full,$(GOALS)),)
$(filter-out check-slow,$(FULL_STAGES)): | $(TOOL) $(TESTS)
endif
# MPI vs simulator under mpirun: np 1 and 2 and the 4-rank training (quick), or all of it
check-mpi-quick: $(TOOL)
	$(Q)$(STAGE) $@ env NO_MPI=$(MPI_SKIP) bash ci/mpi-check.sh --quick $(TOOL)
check-mpi: $(TOOL)
	$(Q)$(STAGE) $@ env NO_MPI=$(MPI_SKIP) bash ci/mpi-check.sh $(TOOL)
# checkpoint and resume under mpirun -np 4: killed at a keyed step, resumed, the same step
# losses and final weights as a run never stopped (ci/resume-check.sh, docs/checkpoint.md)
check-resume: $(TOOL)
	$(Q)$(STAGE) $@ env NO_MPI=$(MPI_SKIP) bash ci/resume-check.sh $(TOOL)
# make install into a temporary prefix, a program built with pkg-config, make uninstall
check-install: all
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/install-check.sh
# the plugin ABI: make install into a temporary prefix, examples/plugin built with pkg-config,
# good PASS / bad FAIL (ci/plugin-check.sh, docs/plugin.md)
check-plugin: all
	+$(Q)$(STAGE) $@ env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/plugin-check.sh
# the docs say what the tree holds: their paths, names and functions exist, architecture.md
# names every file of include/gnnref/, core/ and ref/ and every member of gnn_impl, every page is
# linked, README's commands and models are the tool's (so the tool comes first); the self-test
# plants one fault at a time in a copy and requires each reported; the paper anchors are well
# formed and docs/anchors.md is current (ci/check-doc-paths.py, ci/anchors.py)
check-docs: $(TOOL)
	$(Q)$(STAGE) $@ sh -c 'python3 ci/check-doc-paths.py --tool $(TOOL) && \
	    python3 ci/check-doc-paths.py --self-test --tool $(TOOL) && python3 ci/anchors.py --check && \
	    echo "docs: PASS (the docs name what exists, architecture.md every file and context table, README the commands and models of the tool; the self-test caught every planted fault; anchors current)"'
# no function body over 120 lines and no C/C++/CUDA file over 800, unless the file's header
# comment says why (`size: NAME -- REASON`); the checker's self-test first (ci/size-check.py)
check-size:
	$(Q)$(STAGE) $@ sh -c 'python3 ci/size-check.py --self-test && python3 ci/size-check.py'
# every mutant of ci/mutants.txt still applies (its find text once in its file): code that
# moves carries its mutants along (ci/mutation.py --check-applies; the mutation run itself is
# not part of any tier)
check-mutants:
	$(Q)$(STAGE) $@ python3 ci/mutation.py --check-applies

# the folders depend on each other one way only, measured at symbol level with nm on the
# objects of the build (so after the tool): no two folders (core/<room>, ref, opt/cpu, ...)
# use each other both ways, and no core/ file outside core/api/ (the context) calls into ref/;
# the checker's self-test first (ci/layering.py)
check-layering: $(TOOL)
	$(Q)$(STAGE) $@ sh -c 'python3 ci/layering.py --self-test && python3 ci/layering.py --build $(BUILD)'

# AddressSanitizer + UBSan build in $(BUILD)/asan, oracle and Check suites (ci/sanitize.sh)
sanitize:
	+$(Q)env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/sanitize.sh

# ThreadSanitizer build in $(BUILD)/tsan: the simulator's rank threads (ci/tsan.sh)
tsan:
	+$(Q)env MAKE="$(MAKE)" BUILD="$(BUILD)" bash ci/tsan.sh

bench: $(BENCH)
	$(BENCH) $(BENCH_ARGS)

# ---- fuzzing (fuzz/, docs/fuzzing.md) ------------------------------------------------------
# One libFuzzer harness per reader of outside bytes, built with clang, ASan and UBSan into
# $(BUILD)/fuzz/fuzz_<target>. The library is rebuilt for them by a sub-make in
# $(BUILD)/fuzz/lib with the same compiler and sanitizers plus the fuzzer's coverage
# instrumentation (-fsanitize=fuzzer-no-link), without OpenMP, MPI or CUDA (none is a reader).
# fuzz_report and fuzz_ckpt drive commands (plot; train --resume), so they link the CLI's
# objects too (all but main), built by the same sub-make.
FUZZ_TARGETS := dataset text edgelist ogb manifest part case report ckpt
FUZZ_CC  ?= clang
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_LIB := $(FUZZ_DIR)/lib/libgnnref.a
FUZZ_CLI := $(filter-out %/cli/main.o,$(CLI_SRC:%.c=$(FUZZ_DIR)/lib/obj/%.o))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
.PHONY: fuzz-lib-force
fuzz: $(FUZZ_BINS)
# the sub-make decides what to rebuild; the harnesses relink only when the archive changed
$(FUZZ_LIB) $(FUZZ_CLI) &: fuzz-lib-force
	+$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR)/lib CC=$(FUZZ_CC) NO_CUDA=1 NO_MPI=1 NO_OPENMP=1 \
	    COVFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_LIB) $(FUZZ_CLI)
$(FUZZ_DIR)/fuzz_report $(FUZZ_DIR)/fuzz_ckpt: FUZZ_LINK = $(FUZZ_CLI)
$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) $(FUZZ_LIB) $(FUZZ_CLI)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(CSTD) $(WARN) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer -Iinclude -I. $(PKG_CFLAGS) $< $(FUZZ_LINK) \
	    $(FUZZ_LIB) $(PKG_LIBS) $(BLAS_LIBS) $(METIS_LIBS) -lpthread -lm -o $@

# gnnref vs DGL and PyTorch on the same data, seeds and blocks (bench/peers/run.sh, docs/performance.md)
PEERS_VENV ?= $(HOME)/.cache/gnnref-peers
bench-peers: all $(BENCH)
	$(Q)env BUILD="$(BUILD)" CC="$(CC)" GNN_LIBS="$(LIBS)" PEERS_VENV="$(PEERS_VENV)" bash bench/peers/run.sh $(PEERS_ARGS)

# the sampler and a SAGE epoch at 1 and 2 threads while a busy loop holds a core (docs/openmp.md)
bench-busy: $(TOOL)
	$(Q)bash bench/busy.sh --tool $(TOOL) --dir $(BUILD)/bench-busy $(BUSY_ARGS)

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

# ---- install / uninstall ------------------------------------------------------------------
# The pkg-config file: `cc prog.c $(pkg-config --cflags --libs gnnref)` links the shared
# library; its dependencies are Requires.private / Libs.private (for --static).
PC_LIBDIR     := $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR := $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
INSTALLED_HEADERS := $(HEADERS:include/gnnref/%=$(DESTDIR)$(INCLUDEDIR)/gnnref/%)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/gnnref $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libgnnref.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libgnnref.so.$(VERSION)
	ln -sf libgnnref.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libgnnref.so
	install -m 755 $(TOOL) $(DESTDIR)$(BINDIR)/gnnref
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/gnnref/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(strip $(PRIVATE_LIBS))|' \
	    gnnref.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/gnnref.pc

# removes the files install wrote and the include/gnnref folder it made (when empty); the
# shared folders (bin, lib, include, lib/pkgconfig) stay
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gnnref $(DESTDIR)$(PKGCONFIGDIR)/gnnref.pc \
	    $(DESTDIR)$(LIBDIR)/libgnnref.a $(DESTDIR)$(LIBDIR)/libgnnref.so.$(VERSION) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libgnnref.so $(INSTALLED_HEADERS)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/gnnref 2>/dev/null || true

clean:
	rm -rf $(BUILD)

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' Makefile

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
