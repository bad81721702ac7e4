/* opt/cpu/dense_ukr.h -- the body of a vector micro-kernel of the dense kernel (the contract is
 * opt/cpu/dense_impl.h), written once for every vector width: an MR x NR block of C in 2 MR
 * vector accumulators (MR rows broadcast from A, NR = 2 VL columns = two vectors of B), each
 * lane one FMA chain over k in order. Included by opt/cpu/dense_avx2.c and dense_avx512.c,
 * which define, before including it:
 *   UKR_NAME, UKR_TARGET      the function's name and its target attribute ("avx2,fma", ...)
 *   MR, ROWS(X)               the rows: ROWS(X) expands X(0) ... X(MR - 1)
 *   VL, VEC                   the lanes of a vector and its type (NR = 2 VL)
 *   VLOAD(p), VSTORE(p, v)    unaligned load and store of VL floats
 *   VZERO(), VBCAST(p)        a vector of zeros; *p in every lane
 *   VFMA(x, y, acc)           x * y + acc, each lane one correctly rounded fma
 * Internal: not installed. No include guard: each file includes it once. */

__attribute__((target(UKR_TARGET))) static void UKR_NAME(int64_t kc, const float *a, int64_t a_rs, int64_t a_cs,
                                                         const float *b, int64_t ldb, float *c, int64_t ldc,
                                                         const float *init, int load)
{
#define DECL(r) VEC c##r##l, c##r##h;
    ROWS(DECL)
#undef DECL
    if (load) {
#define LOAD(r)                                                                                                        \
    c##r##l = VLOAD(c + (r) * ldc);                                                                                    \
    c##r##h = VLOAD(c + (r) * ldc + VL);
        ROWS(LOAD)
#undef LOAD
    } else {
        const VEC il = init ? VLOAD(init) : VZERO();
        const VEC ih = init ? VLOAD(init + VL) : VZERO();
#define INIT(r)                                                                                                        \
    c##r##l = il;                                                                                                      \
    c##r##h = ih;
        ROWS(INIT)
#undef INIT
    }
#define ROWPTR(r) const float *a##r = a + (r) * a_rs;
    ROWS(ROWPTR)
#undef ROWPTR
    for (int64_t k = 0, o = 0; k < kc; k++, o += a_cs) {
        const VEC bl = VLOAD(b), bh = VLOAD(b + VL);
        b += ldb;
#define STEP(r)                                                                                                        \
    {                                                                                                                  \
        const VEC t = VBCAST(a##r + o);                                                                                \
        c##r##l = VFMA(t, bl, c##r##l);                                                                                \
        c##r##h = VFMA(t, bh, c##r##h);                                                                                \
    }
        ROWS(STEP)
#undef STEP
    }
#define STORE(r)                                                                                                       \
    VSTORE(c + (r) * ldc, c##r##l);                                                                                    \
    VSTORE(c + (r) * ldc + VL, c##r##h);
    ROWS(STORE)
#undef STORE
}
