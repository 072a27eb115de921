/*
 * A native DLPack peer for tensorbuf's tests: produces tensors of several kinds (strided, with
 * byte_offset, packed sub-byte, read-only, NULL strides, device, malformed), consumes ours (an
 * order-sensitive checksum read through the strides), and counts deleter calls. The structs are
 * written out here from dlpack.h 1.3 so the test needs no header package.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define FLAG_READ_ONLY 1u
#define FLAG_SUBBYTE_PADDED 4u

static int deleter_calls = 0;
static int free_calls = 0;

int tb_deleter_calls(void) { return __atomic_load_n(&deleter_calls, __ATOMIC_SEQ_CST); }
int tb_free_calls(void) { return __atomic_load_n(&free_calls, __ATOMIC_SEQ_CST); }
void tb_reset(void) {
    __atomic_store_n(&deleter_calls, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&free_calls, 0, __ATOMIC_SEQ_CST);
}

/* One allocation holds the struct, shape, strides and data: the deleter frees it all. */
typedef struct {
    DLManagedTensorVersioned versioned;
    DLManagedTensor legacy;
    int64_t shape[8];
    int64_t strides[8];
    unsigned char data[256];
} Block;

static void delete_versioned(DLManagedTensorVersioned *self) {
    __atomic_add_fetch(&deleter_calls, 1, __ATOMIC_SEQ_CST);
    free(self->manager_ctx);
}

static void delete_legacy(DLManagedTensor *self) {
    __atomic_add_fetch(&deleter_calls, 1, __ATOMIC_SEQ_CST);
    free(self->manager_ctx);
}

/* Fills the tensor of `kind` into b; returns the versioned flags. */
static uint64_t fill(Block *b, DLTensor *t, int kind, uint32_t *minor, uint32_t *major) {
    memset(t, 0, sizeof *t);
    t->data = b->data;
    t->device.device_type = 1; /* kDLCPU */
    t->shape = b->shape;
    t->strides = b->strides;
    t->dtype.lanes = 1;
    uint64_t flags = 0;
    switch (kind) {
    case 0: { /* f32 [2,3], row pitch 4, byte_offset 8: reads 2 3 4 / 6 7 8 */
        float *f = (float *) b->data;
        for (int i = 0; i < 16; i++) f[i] = (float) i;
        t->ndim = 2; t->dtype.code = 2; t->dtype.bits = 32;
        b->shape[0] = 2; b->shape[1] = 3; b->strides[0] = 4; b->strides[1] = 1;
        t->byte_offset = 8;
        break;
    }
    case 1: { /* s4 [5] packed, byte_offset 1: 1 -2 3 -4 7 */
        b->data[0] = 0xff; b->data[1] = 0xe1; b->data[2] = 0xc3; b->data[3] = 0x07;
        t->ndim = 1; t->dtype.code = 0; t->dtype.bits = 4;
        b->shape[0] = 5; b->strides[0] = 1; t->byte_offset = 1;
        break;
    }
    case 2: { /* s32 [3] read-only: 10 20 30 */
        int32_t *v = (int32_t *) b->data;
        v[0] = 10; v[1] = 20; v[2] = 30;
        t->ndim = 1; t->dtype.code = 0; t->dtype.bits = 32;
        b->shape[0] = 3; b->strides[0] = 1;
        flags = FLAG_READ_ONLY;
        break;
    }
    case 3: { /* f64 [4], stride -1, byte_offset 24: reads 3 2 1 0 */
        double *d = (double *) b->data;
        for (int i = 0; i < 4; i++) d[i] = i;
        t->ndim = 1; t->dtype.code = 2; t->dtype.bits = 64;
        b->shape[0] = 4; b->strides[0] = -1; t->byte_offset = 24;
        break;
    }
    case 4: { /* u1 [10] packed: 1 0 1 1 0 0 1 0 1 1 */
        b->data[0] = 0x4d; b->data[1] = 0x03;
        t->ndim = 1; t->dtype.code = 1; t->dtype.bits = 1;
        b->shape[0] = 10; b->strides[0] = 1;
        break;
    }
    case 5: /* f32 [0,3], data NULL */
        t->data = NULL; t->ndim = 2; t->dtype.code = 2; t->dtype.bits = 32;
        b->shape[0] = 0; b->shape[1] = 3; b->strides[0] = 3; b->strides[1] = 1;
        break;
    case 6: { /* f32 [2,2], strides NULL, version 1.1: 1 2 / 3 4 */
        float *f = (float *) b->data;
        for (int i = 0; i < 4; i++) f[i] = (float) (i + 1);
        t->ndim = 2; t->dtype.code = 2; t->dtype.bits = 32;
        b->shape[0] = 2; b->shape[1] = 2; t->strides = NULL;
        *minor = 1;
        break;
    }
    case 7: /* like 6 but DLPack 1.3: NULL strides are invalid */
        fill(b, t, 6, minor, major);
        *minor = 3;
        break;
    case 8: /* kDLCUDA device 1, a made-up device address never dereferenced */
        t->data = (void *) (uintptr_t) 0x7f0000000000ull; t->device.device_type = 2; t->device.device_id = 1;
        t->ndim = 1; t->dtype.code = 2; t->dtype.bits = 32;
        b->shape[0] = 4; b->strides[0] = 1;
        break;
    case 9: { /* s4 [2] padded: one byte each: -3 5 */
        b->data[0] = 0x0d; b->data[1] = 0x05;
        t->ndim = 1; t->dtype.code = 0; t->dtype.bits = 4;
        b->shape[0] = 2; b->strides[0] = 1;
        flags = FLAG_SUBBYTE_PADDED;
        break;
    }
    case 11: /* kDLCUDAManaged device 0: unified memory, a made-up address never dereferenced */
        t->data = (void *) (uintptr_t) 0x7f0000000000ull; t->device.device_type = 13; t->device.device_id = 0;
        t->ndim = 1; t->dtype.code = 2; t->dtype.bits = 32;
        b->shape[0] = 4; b->strides[0] = 1;
        break;
    case 10: { /* f64 [4], stride -1, data at the last double, as NumPy exports a[::-1]: reads 3 2 1 0 */
        fill(b, t, 3, minor, major);
        t->data = b->data + 24; t->byte_offset = 0;
        break;
    }
    /* malformed */
    case 20: fill(b, t, 0, minor, major); t->ndim = -1; break;
    case 21: fill(b, t, 0, minor, major); t->ndim = 1000; break;
    case 22: fill(b, t, 0, minor, major); t->data = NULL; break;
    case 23: fill(b, t, 0, minor, major); t->dtype.code = 99; break;
    case 24: fill(b, t, 0, minor, major); t->dtype.lanes = 4; break;
    case 25: fill(b, t, 0, minor, major); t->dtype.bits = 24; break;
    case 26: fill(b, t, 0, minor, major); t->device.device_type = 6; break;
    case 27: fill(b, t, 0, minor, major); *major = 2; break;
    case 28: fill(b, t, 0, minor, major); b->shape[1] = -3; break;
    case 29: fill(b, t, 0, minor, major); t->byte_offset = 0x8000000000000000ull; break;
    case 30: fill(b, t, 0, minor, major); t->shape = NULL; break;
    case 31: fill(b, t, 3, minor, major); t->data = (void *) (uintptr_t) 8; t->byte_offset = 0; break; /* reaches below address 0 */
    case 32: fill(b, t, 0, minor, major); b->shape[0] = INT64_MAX / 2; b->shape[1] = 3; break;
    }
    return flags;
}

DLManagedTensorVersioned *tb_make_versioned(int kind) {
    Block *b = calloc(1, sizeof(Block));
    uint32_t minor = 3, major = 1;
    uint64_t flags = fill(b, &b->versioned.dl_tensor, kind, &minor, &major);
    b->versioned.version.major = major;
    b->versioned.version.minor = minor;
    b->versioned.flags = flags;
    b->versioned.manager_ctx = b;
    b->versioned.deleter = delete_versioned;
    return &b->versioned;
}

DLManagedTensor *tb_make_legacy(int kind) {
    Block *b = calloc(1, sizeof(Block));
    uint32_t minor = 0, major = 1;
    fill(b, &b->legacy.dl_tensor, kind, &minor, &major);
    b->legacy.manager_ctx = b;
    b->legacy.deleter = delete_legacy;
    return &b->legacy;
}

/* ---- consuming our tensors ---------------------------------------------------------------- */

static double element(const DLTensor *t, int64_t offset, int padded) {
    const unsigned char *base = (const unsigned char *) t->data + t->byte_offset;
    int bits = t->dtype.bits, code = t->dtype.code;
    if (bits < 8 && !padded) {
        int64_t bit = offset * bits;
        unsigned v = (base[bit >> 3] >> (bit & 7)) & ((1u << bits) - 1);
        if (code == 0 && (v >> (bits - 1))) return (double) ((int) v - (1 << bits));
        return v;
    }
    const unsigned char *p = base + offset * ((bits + 7) / 8);
    if (bits < 8) {
        unsigned v = *p & ((1u << bits) - 1);
        if (code == 0 && (v >> (bits - 1))) return (double) ((int) v - (1 << bits));
        return v;
    }
    switch (code * 1000 + bits) {
    case 2032: { float f; memcpy(&f, p, 4); return f; }
    case 2064: { double d; memcpy(&d, p, 8); return d; }
    case 8: return (int8_t) *p;
    case 16: { int16_t v; memcpy(&v, p, 2); return v; }
    case 32: { int32_t v; memcpy(&v, p, 4); return v; }
    case 64: { int64_t v; memcpy(&v, p, 8); return (double) v; }
    case 1008: case 6008: return *p;
    case 1016: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 1032: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: return 1e300; /* a type this peer does not read */
    }
}

/* sum over logical row-major order k of (k + 1) * element: order and stride sensitive */
static double checksum(const DLTensor *t, int padded) {
    int64_t count = 1;
    for (int d = 0; d < t->ndim; d++) count *= t->shape[d];
    int64_t index[16] = {0};
    double sum = 0;
    for (int64_t k = 0; k < count; k++) {
        int64_t offset = 0, step = 1;
        for (int d = t->ndim - 1; d >= 0; d--) {
            int64_t stride = t->strides ? t->strides[d] : step;
            offset += index[d] * stride;
            step *= t->shape[d];
        }
        sum += (double) (k + 1) * element(t, offset, padded);
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++index[d] < t->shape[d]) break;
            index[d] = 0;
        }
    }
    return sum;
}

double tb_checksum_versioned(DLManagedTensorVersioned *m) {
    return checksum(&m->dl_tensor, (m->flags & FLAG_SUBBYTE_PADDED) != 0);
}

double tb_checksum_legacy(DLManagedTensor *m) {
    return checksum(&m->dl_tensor, 0);
}

/* Writes through the tensor: element k (row-major) := k * 10 (f32 only). Returns -1 if read-only. */
int tb_write_f32_versioned(DLManagedTensorVersioned *m) {
    if (m->flags & FLAG_READ_ONLY) return -1;
    DLTensor *t = &m->dl_tensor;
    if (t->dtype.code != 2 || t->dtype.bits != 32 || t->ndim != 2) return -2;
    for (int64_t i = 0; i < t->shape[0]; i++)
        for (int64_t j = 0; j < t->shape[1]; j++) {
            float v = (float) ((i * t->shape[1] + j) * 10);
            memcpy((char *) t->data + t->byte_offset + 4 * (i * t->strides[0] + j * t->strides[1]), &v, 4);
        }
    return 0;
}

static void describe(const DLTensor *t, int64_t *out) {
    out[0] = t->ndim;
    out[1] = t->dtype.code;
    out[2] = t->dtype.bits;
    out[3] = t->dtype.lanes;
    out[4] = t->device.device_type;
    out[5] = t->device.device_id;
    out[6] = (int64_t) t->byte_offset;
    out[7] = t->data == NULL;
    out[8] = t->strides == NULL;
    for (int d = 0; d < t->ndim && d < 4; d++) {
        out[9 + d] = t->shape[d];
        out[13 + d] = t->strides ? t->strides[d] : 0;
    }
}

/* out: ndim, code, bits, lanes, device type, device id, byte_offset, data NULL, strides NULL,
 * shape[0..3], strides[0..3], version major, minor, flags, deleter NULL */
void tb_describe_versioned(DLManagedTensorVersioned *m, int64_t *out) {
    describe(&m->dl_tensor, out);
    out[17] = m->version.major;
    out[18] = m->version.minor;
    out[19] = (int64_t) m->flags;
    out[20] = m->deleter == NULL;
}

void tb_describe_legacy(DLManagedTensor *m, int64_t *out) {
    describe(&m->dl_tensor, out);
    out[20] = m->deleter == NULL;
}

void tb_delete_versioned(DLManagedTensorVersioned *m) { m->deleter(m); }
void tb_delete_legacy(DLManagedTensor *m) { m->deleter(m); }

static void *delete_thread(void *arg) {
    DLManagedTensorVersioned *m = arg;
    m->deleter(m);
    return NULL;
}

/* Calls the deleter from a thread the JVM has never seen. */
int tb_delete_versioned_on_new_thread(DLManagedTensorVersioned *m) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, delete_thread, m) != 0) return -1;
    return pthread_join(thread, NULL);
}

/* sizes and offsets as this compiler lays the structs out */
void tb_layout(int64_t *out) {
    out[0] = sizeof(DLTensor);
    out[1] = sizeof(DLManagedTensor);
    out[2] = sizeof(DLManagedTensorVersioned);
    out[3] = offsetof(DLTensor, device);
    out[4] = offsetof(DLTensor, ndim);
    out[5] = offsetof(DLTensor, dtype);
    out[6] = offsetof(DLTensor, shape);
    out[7] = offsetof(DLTensor, strides);
    out[8] = offsetof(DLTensor, byte_offset);
    out[9] = offsetof(DLManagedTensor, manager_ctx);
    out[10] = offsetof(DLManagedTensor, deleter);
    out[11] = offsetof(DLManagedTensorVersioned, manager_ctx);
    out[12] = offsetof(DLManagedTensorVersioned, deleter);
    out[13] = offsetof(DLManagedTensorVersioned, flags);
    out[14] = offsetof(DLManagedTensorVersioned, dl_tensor);
}

/* ---- raw pointers for NativeMemory ---------------------------------------------------------- */

void *tb_alloc_ints(int n) {
    int32_t *p = malloc(sizeof(int32_t) * (size_t) n);
    for (int i = 0; i < n; i++) p[i] = i * i;
    return p;
}

void tb_counting_free(void *p) {
    __atomic_add_fetch(&free_calls, 1, __ATOMIC_SEQ_CST);
    free(p);
}
