/*
 * A DPI-C shim for SystemVerilog open arrays: `input byte unsigned bytes[]` reaches C as an
 * svOpenArrayHandle, which the library does not take; svGetArrayPtr and svSize turn it
 * into the pointer and length openrdma_push_frame wants. Compile it with the testbench
 * (the simulator provides svdpi.h) and link the library as usual.
 */

#include <stdint.h>

#include "svdpi.h"

/* Simulators may compile this file as C++ (Verilator does): C linkage either way. */
#ifdef __cplusplus
extern "C" {
#endif

/* From openrdma.h, declared here so that the shim needs no include path but the
 * simulator's (the prototype is the header's). */
uint32_t openrdma_push_frame(void *m, uint64_t at_ns, uint16_t port, const uint8_t *bytes,
                             uint32_t len);

uint32_t sv_openrdma_push_frame(void *m, uint64_t at_ns, uint16_t port,
                                const svOpenArrayHandle bytes) {
    const uint8_t *p = (const uint8_t *)svGetArrayPtr(bytes);
    /* NULL when the simulator keeps the array in a layout C cannot read directly;
     * openrdma_push_frame then reports a NULL pointer. */
    return openrdma_push_frame(m, at_ns, port, p, (uint32_t)svSize(bytes, 1));
}

#ifdef __cplusplus
}
#endif
