/*
 * A C program that drives the OpenRDMA golden model through its C interface.
 *
 *     scenario_test [SCENARIO.txt ...]
 *
 * 1. A self-contained example: one MRC write frame (the one of the adapter protocol's
 *    example in the specification's conformance chapter, section 9.5) to a QP set up with
 *    plain C calls; the transport ACK, the SACK, the DMA write and the completion flag it
 *    produces are checked field by field and byte by byte; then the same frame again, a
 *    duplicate, read through the one-output-at-a-time functions a DPI-C testbench uses.
 * 2. The error paths: NULL pointers, bad UTF-8, bad JSON, a bad configuration, a refused
 *    command, time going backwards, out-of-range arguments, and the message accessor.
 * 3. A completion queue set up with plain C calls: rejected tokens written to its slots
 *    with their phases as the consumer releases them, and the calls it refuses.
 * 4. Each scenario file given: a whole scenario of the corpus, replayed; every output
 *    must be the scenario's next expect record, except a report the scenario did not
 *    record, and every expect record must come (the format is below, written by the Rust
 *    test that runs this program).
 *
 * Prints one line per failed check and, last, "N passed, M failed"; exits with 1 when a
 * check failed, 2 when a file cannot be read.
 *
 * Scenario file: one record per line, fields separated by one space, JSON last.
 *     manifest JSON
 *     inject host AT JSON | inject cpu AT JSON | inject frame AT PORT HEX
 *     expect frame AT PORT OPCODE DEST_QP PSN HAS_SETH CACK_PSN SACK_BITMAP HAS_NETH NACK_PSN HEX
 *     expect dma_write AT QPN PSN MSN VA LEN JSON
 *     expect flag_write AT QPN SIDE MSN ADDR VALUE JSON
 *     expect completion AT QPN SIDE WR_ID STATUS MSN BYTE_LEN IMM HAS_IMM IS_RECEIVE JSON
 *     expect report AT QPN JSON
 *     end AT
 */

#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openrdma.h"

static unsigned passed, failed;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (cond) {                                                                        \
            passed++;                                                                      \
        } else {                                                                           \
            failed++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

/* A call that must succeed; on failure the model's message is printed. */
#define CHECK_OK(m, call)                                                                  \
    do {                                                                                   \
        openrdma_status s_ = (call);                                                       \
        CHECK(s_ == OPENRDMA_STATUS_OK, "%s: %s", openrdma_status_name(s_),                \
              openrdma_last_error(m));                                                     \
    } while (0)

/* A call that must fail with `want`, with a message that contains `part`. */
#define CHECK_FAILS(m, want, part, call)                                                   \
    do {                                                                                   \
        openrdma_status s_ = (call);                                                       \
        const char *msg_ = openrdma_last_error(m);                                         \
        CHECK(s_ == (want), "got %s (%s)", openrdma_status_name(s_), msg_);                \
        CHECK(strstr(msg_, (part)) != NULL, "message \"%s\" does not mention \"%s\"", msg_, \
              (part));                                                                     \
    } while (0)

/* Decodes hexadecimal into a new buffer; returns NULL when it is not hexadecimal. */
static uint8_t *from_hex(const char *hex, uint32_t *len) {
    size_t n = strlen(hex);
    if (n % 2 != 0) return NULL;
    uint8_t *b = malloc(n / 2 + 1);
    if (b == NULL) return NULL;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            free(b);
            return NULL;
        }
        b[i] = (uint8_t)v;
    }
    *len = (uint32_t)(n / 2);
    return b;
}

static int bytes_equal_hex(const uint8_t *bytes, uint32_t len, const char *hex) {
    uint32_t n = 0;
    uint8_t *want = from_hex(hex, &n);
    int eq = want != NULL && n == len && (len == 0 || memcmp(bytes, want, len) == 0);
    free(want);
    return eq;
}

/* ----- 1. the example of the specification ------------------------------------------- */

/* An MRC WRITE_ONLY (opcode 0xCA) to QP 17, PSN 0, with AckReq: 64 bytes for address
 * 0x10000000 under rkey 0x1234, over IPv4 from 10.0.0.2 to 10.0.0.1. */
static const char WRITE_FRAME[] =
    "02000000000102000000000208004500008400004000401126670a0000020a000001a00012b70070"
    "0000ca00ffff0000001190000000000100000000000100000000100000000000123400000040bbbc"
    "bdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4"
    "e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fa6d92a8c0";
/* What the device answers: a transport ACK (0xD1) of MSN 0 and a SACK (0xDC) with
 * cack_psn 0, both to the peer's QP 33. */
static const char ACK_FRAME[] =
    "02000000000202000000000108004500003000004000401126bb0a0000010a000002a00012b7001c"
    "0000d100ffff00000021000000001f00000012e3e1c3";
static const char SACK_FRAME[] =
    "020000000002020000000001080045000050000040004011269b0a0000010a000002a00012b7003c"
    "0000dc00ffff000000210000000000000000a000000000000000000000000001000100000000000000"
    "00000000000000000011e3ccbb";

static const uint32_t EVS[8] = {3239051264u, 3239117073u, 3239182882u, 3239248691u,
                                3239314500u, 3239380309u, 3239446118u, 3239511927u};

static openrdma_model *example_model(void) {
    openrdma_config cfg;
    CHECK_OK(NULL, openrdma_config_default(&cfg));
    cfg.ports = 4;
    cfg.pmtu = 1024;
    cfg.mpr = 1;
    openrdma_model *m = NULL;
    CHECK_OK(NULL, openrdma_create_with(&cfg, &m));
    if (m == NULL) return NULL;
    CHECK_OK(m, openrdma_push_register_region(m, 0, 0x1234, 0x10000000, 16u << 20, 1));
    openrdma_qp_config qp = {
        .qpn = 17,
        .peer_qpn = 33,
        .evs = EVS,
        .ev_count = 8,
        .recv_flag_base = 537985024,
        .recv_flag_slots = 256,
        .send_flag_base = 806420480,
        .send_flag_slots = 256,
    };
    CHECK_OK(m, openrdma_push_create_qp(m, 0, &qp));
    return m;
}

static void example(void) {
    CHECK(openrdma_abi_version() == OPENRDMA_ABI_VERSION, "library ABI %u, header ABI %u",
          openrdma_abi_version(), OPENRDMA_ABI_VERSION);
    CHECK(strlen(openrdma_version()) > 0, "empty version");
    CHECK(openrdma_output_size() == sizeof(openrdma_output), "library %u, header %zu",
          openrdma_output_size(), sizeof(openrdma_output));

    openrdma_model *m = example_model();
    if (m == NULL) return;
    uint32_t len = 0;
    uint8_t *frame = from_hex(WRITE_FRAME, &len);
    CHECK(frame != NULL, "bad hex");
    if (frame == NULL) return;
    /* What a block behind the packet parser would be given. */
    openrdma_frame_fields f;
    CHECK_OK(NULL, openrdma_decode_frame(frame, len, &f));
    CHECK(f.has_bth && f.icrc_ok && f.opcode == 0xCA && f.dest_qp == 17 && f.psn == 0 &&
              f.ack_req && !f.rtx,
          "BTH fields: opcode %#x QP %u PSN %u", f.opcode, f.dest_qp, f.psn);
    CHECK(f.has_meth && f.msn == 0 && f.has_tseth && f.has_reth && f.va == 0x10000000 &&
              f.rkey == 0x1234 && f.dma_len == 64 && f.payload_len == 64 && !f.has_seth,
          "write fields: va %#" PRIx64 " rkey %#x len %u", f.va, f.rkey, f.payload_len);
    CHECK(f.entropy == 0xA0000000u, "entropy %#x", f.entropy);

    CHECK_OK(m, openrdma_push_frame(m, 1000, 0, frame, len));
    CHECK_OK(m, openrdma_advance(m, 3000));

    openrdma_output out[8];
    uint32_t n = 0;
    CHECK_OK(m, openrdma_pop_outputs(m, out, 8, &n));
    CHECK(n == 4, "%u outputs, expected 4 (ACK, SACK, DMA write, flag)", n);
    if (n == 4) {
        const openrdma_output *ack = &out[0], *sack = &out[1], *dma = &out[2], *flag = &out[3];
        CHECK(ack->kind == OPENRDMA_OUTPUT_KIND_FRAME && ack->at_ns == 1000 && ack->port == 0,
              "ACK: kind %u at %" PRIu64 " port %u", ack->kind, ack->at_ns, ack->port);
        CHECK(bytes_equal_hex(ack->bytes, ack->len, ACK_FRAME), "ACK bytes differ");
        CHECK(ack->frame.has_aeth && ack->frame.aeth_msn == 0 && ack->frame.opcode == 0xD1,
              "ACK fields");

        CHECK(sack->kind == OPENRDMA_OUTPUT_KIND_FRAME && sack->at_ns == 1000, "SACK kind");
        CHECK(bytes_equal_hex(sack->bytes, sack->len, SACK_FRAME), "SACK bytes differ");
        CHECK(sack->qpn == 33 && sack->frame.dest_qp == 33, "SACK to QP %u", sack->qpn);
        CHECK(sack->frame.has_bth && sack->frame.icrc_ok && sack->frame.opcode == 0xDC,
              "SACK BTH: opcode %#x", sack->frame.opcode);
        CHECK(sack->frame.has_seth && sack->frame.cack_psn == 0 && sack->frame.sack_bitmap == 0,
              "SACK: cack_psn %u bitmap %#" PRIx64, sack->frame.cack_psn,
              sack->frame.sack_bitmap);
        CHECK(sack->frame.mpr == 1, "SACK mpr %u", sack->frame.mpr);
        CHECK(strstr(sack->json, "\"seth\"") != NULL && strlen(sack->json) == sack->json_len,
              "SACK JSON: %s", sack->json);

        CHECK(dma->kind == OPENRDMA_OUTPUT_KIND_DMA_WRITE && dma->qpn == 17, "DMA write kind");
        CHECK(dma->dma_write.va == 0x10000000 && dma->len == 64 && dma->dma_write.psn == 0 &&
                  dma->dma_write.msn == 0,
              "DMA write: va %#" PRIx64 " len %u", dma->dma_write.va, dma->len);
        /* The payload is the last 64 bytes before the ICRC. */
        CHECK(dma->len == 64 && memcmp(dma->bytes, frame + len - 4 - 64, 64) == 0,
              "DMA payload differs from the frame's");
        CHECK(strncmp(dma->json, "{\"event\":\"dma_write\"", 20) == 0, "DMA JSON: %s",
              dma->json);

        CHECK(flag->kind == OPENRDMA_OUTPUT_KIND_FLAG_WRITE && flag->qpn == 17, "flag kind");
        CHECK(flag->flag_write.side == OPENRDMA_SIDE_RESPONDER && flag->flag_write.msn == 0,
              "flag side %u", flag->flag_write.side);
        CHECK(flag->flag_write.addr == 537985024 && flag->flag_write.value == 549755813952u,
              "flag: addr %" PRIu64 " value %" PRIu64, flag->flag_write.addr,
              flag->flag_write.value);
        uint64_t le = 0;
        for (uint32_t i = 0; i < flag->len && i < 8; i++) le |= (uint64_t)flag->bytes[i] << (8 * i);
        CHECK(flag->len == 8 && le == flag->flag_write.value, "flag bytes");
    }
    CHECK_OK(m, openrdma_pop_outputs(m, out, 8, &n));
    CHECK(n == 0, "%u outputs left", n);

    /* The same frame again: a duplicate. Read one output at a time, as DPI-C does. */
    CHECK_OK(m, openrdma_push_frame(m, 4000, 2, frame, len));
    uint32_t kind = 0, frames = 0, sacks = 0, dmas = 0;
    uint64_t at = 0, v = 0;
    for (;;) {
        CHECK_OK(m, openrdma_next_output(m, &kind, &at));
        if (kind == OPENRDMA_OUTPUT_KIND_NONE) break;
        CHECK(at == 4000, "duplicate's output at %" PRIu64, at);
        if (kind == OPENRDMA_OUTPUT_KIND_DMA_WRITE) dmas++;
        if (kind != OPENRDMA_OUTPUT_KIND_FRAME) continue;
        frames++;
        CHECK_OK(m, openrdma_output_field(m, "frame.has_seth", &v));
        if (v != 1) continue;
        sacks++;
        CHECK_OK(m, openrdma_output_field(m, "frame.cack_psn", &v));
        CHECK(v == 0, "duplicate SACK cack_psn %" PRIu64, v);
        CHECK_OK(m, openrdma_output_field(m, "frame.dest_qp", &v));
        CHECK(v == 33, "duplicate SACK to QP %" PRIu64, v);
        uint8_t buf[256];
        uint32_t blen = 0;
        CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "holds 4", openrdma_output_bytes(m, buf, 4, &blen));
        CHECK(blen == 94, "SACK of %u bytes", blen);
        CHECK_OK(m, openrdma_output_bytes(m, buf, sizeof buf, &blen));
        CHECK(blen == 94 && buf[42] == 0xDC, "SACK bytes: %u, opcode %#x", blen, buf[42]);
        CHECK(strstr(openrdma_output_json(m), "\"cack_psn\":0") != NULL, "JSON: %s",
              openrdma_output_json(m));
        CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "belongs to dma_write",
                    openrdma_output_field(m, "dma_write.va", &v));
        CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "no output field",
                    openrdma_output_field(m, "frame.nonsense", &v));
    }
    CHECK(frames >= 1 && sacks == 1, "duplicate: %u frames, %u SACKs", frames, sacks);
    CHECK(dmas == 0, "a duplicate is not placed again (%u DMA writes)", dmas);
    CHECK(strcmp(openrdma_output_json(m), "") == 0, "no current output after the last pop");
    free(frame);
    openrdma_destroy(m);
}

/* ----- 2. error paths ----------------------------------------------------------------- */

static void errors(void) {
    openrdma_model *m = (openrdma_model *)1; /* must be set to NULL on failure */
    CHECK_FAILS(NULL, OPENRDMA_STATUS_NULL_POINTER, "manifest_json", openrdma_create(NULL, &m));
    CHECK(m == NULL, "a failed create leaves *out NULL");
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_JSON, "line 1 column", openrdma_create("{\"name\":", &m));
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_JSON, "missing field `name`", openrdma_create("{}", &m));
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_UTF8, "offset 9",
                openrdma_create("{\"name\":\"\xff\"}", &m));
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_CONFIG, "pmtu",
                openrdma_create("{\"name\":\"x\",\"description\":\"\",\"requirements\":[],"
                                "\"nic\":{\"pmtu\":1000}}",
                                &m));
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_JSON, "unknown field `colour`",
                openrdma_create("{\"name\":\"x\",\"description\":\"\",\"requirements\":[],"
                                "\"colour\":1}",
                                &m));
    CHECK_FAILS(NULL, OPENRDMA_STATUS_NULL_POINTER, "cfg", openrdma_config_default(NULL));
    openrdma_config cfg;
    CHECK_OK(NULL, openrdma_config_default(&cfg));
    cfg.retirement = 7;
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_CONFIG, "config.retirement", openrdma_create_with(&cfg, &m));
    CHECK_OK(NULL, openrdma_config_default(&cfg));
    cfg.ports = 0;
    CHECK_FAILS(NULL, OPENRDMA_STATUS_INVALID_CONFIG, "ports", openrdma_create_with(&cfg, &m));
    CHECK(m == NULL, "a failed create leaves *out NULL");

    CHECK_FAILS(NULL, OPENRDMA_STATUS_NULL_POINTER, "`m`", openrdma_advance(NULL, 0));
    openrdma_frame_fields f;
    uint8_t junk[3] = {1, 2, 3};
    CHECK_OK(NULL, openrdma_decode_frame(junk, 3, &f));
    CHECK(!f.has_bth && f.opcode == 0, "junk decodes to nothing");
    CHECK_FAILS(NULL, OPENRDMA_STATUS_NULL_POINTER, "bytes", openrdma_decode_frame(NULL, 3, &f));
    CHECK_FAILS(NULL, OPENRDMA_STATUS_NULL_POINTER, "out", openrdma_decode_frame(junk, 3, NULL));
    CHECK(strcmp(openrdma_status_name(OPENRDMA_STATUS_INVALID_JSON), "OPENRDMA_STATUS_INVALID_JSON") == 0,
          "status name");
    CHECK(strcmp(openrdma_status_name(99), "unknown status") == 0, "unknown status name");
    openrdma_destroy(NULL);

    m = example_model();
    if (m == NULL) return;
    CHECK(strcmp(openrdma_last_error(m), "") == 0, "a fresh instance has no error");
    uint8_t b[4] = {0};
    CHECK_FAILS(m, OPENRDMA_STATUS_NULL_POINTER, "bytes", openrdma_push_frame(m, 10, 0, NULL, 60));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "port 9", openrdma_push_frame(m, 10, 9, b, 4));
    CHECK_OK(m, openrdma_push_frame(m, 10, 0, b, 4)); /* garbage is dropped, as a NIC drops it */
    CHECK_FAILS(m, OPENRDMA_STATUS_NULL_POINTER, "bytes",
                openrdma_push_doorbell_write(m, 10, 0, 0, NULL, 8));
    /* Half a doorbell register carries no token: the device ignores it (DB-MMIO-002). */
    CHECK_OK(m, openrdma_push_doorbell_write(m, 10, 0, 0, b, 4));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_UTF8, "json", openrdma_push_host_json(m, 10, "\"\xc3\x28\""));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_JSON, "unknown variant `nope`",
                openrdma_push_host_json(m, 10, "{\"command\":\"nope\"}"));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_JSON, "missing field `qpn`",
                openrdma_push_cpu_json(m, 10, "{\"cmd\":\"retransmit\",\"psn\":3}"));
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-QP-004",
                openrdma_push_cpu_json(m, 10, "{\"cmd\":\"retransmit\",\"qpn\":99,\"psn\":3}"));
    openrdma_qp_config qp = {.qpn = 17, .peer_qpn = 33, .evs = EVS, .ev_count = 8};
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-QP-001", openrdma_push_create_qp(m, 20, &qp));
    qp.qpn = 1u << 24;
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "24 bits", openrdma_push_create_qp(m, 20, &qp));
    qp.qpn = 18;
    qp.evs = NULL;
    CHECK_FAILS(m, OPENRDMA_STATUS_NULL_POINTER, "cfg->evs", openrdma_push_create_qp(m, 20, &qp));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "remote_write",
                openrdma_push_register_region(m, 20, 1, 0, 4096, 2));
    CHECK_OK(m, openrdma_advance(m, 100));
    CHECK_FAILS(m, OPENRDMA_STATUS_TIME_WENT_BACKWARDS, "before the model's time, 100 ns",
                openrdma_push_doorbell(m, 50, 0));
    CHECK_FAILS(m, OPENRDMA_STATUS_TIME_WENT_BACKWARDS, "until 99 ns", openrdma_advance(m, 99));
    uint64_t now = 0;
    CHECK_OK(m, openrdma_now(m, &now));
    CHECK(now == 100, "now %" PRIu64, now);
    uint32_t n = 0;
    CHECK_FAILS(m, OPENRDMA_STATUS_NULL_POINTER, "count", openrdma_pop_outputs(m, NULL, 0, NULL));
    CHECK_FAILS(m, OPENRDMA_STATUS_NULL_POINTER, "outs", openrdma_pop_outputs(m, NULL, 4, &n));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "no current output",
                openrdma_output_field(m, "at_ns", &now));

    /* A batch stops at the first input that fails; those before it are applied. */
    openrdma_input batch[3] = {
        {.at_ns = 200, .kind = OPENRDMA_INPUT_KIND_HOST_JSON,
         .json = "{\"command\":\"register_region\",\"rkey\":7,\"base\":0,\"len\":64,"
                 "\"remote_write\":true}"},
        {.at_ns = 200, .kind = 42},
        {.at_ns = 300, .kind = OPENRDMA_INPUT_KIND_DOORBELL, .token = 0},
    };
    uint32_t applied = 99;
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "inputs[1]: kind 42",
                openrdma_push_inputs(m, batch, 3, &applied));
    CHECK(applied == 1, "applied %u", applied);
    CHECK_OK(m, openrdma_now(m, &now));
    CHECK(now == 200, "now %" PRIu64 " after a batch stopped at 200", now);
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_JSON, "inputs[0]",
                openrdma_push_inputs_json(m, "[{\"at\":300}]", &applied));
    CHECK(applied == 0, "applied %u", applied);
    CHECK_OK(m, openrdma_push_inputs_json(
                    m, "[{\"at\":300,\"input\":{\"kind\":\"host\",\"command\":{\"command\":"
                       "\"doorbell\",\"token\":0}}},{\"at\":400,\"input\":{\"kind\":\"frame\","
                       "\"port\":1,\"bytes\":\"00ff\"}}]",
                    &applied));
    CHECK(applied == 2, "applied %u", applied);
    openrdma_destroy(m);
}

/* ----- 3. a completion queue ---------------------------------------------------------- */

/* Rings a token that names no template at `at`: its error completion goes to the device
 * error queue, here queue 1 of two slots. Checks where it was written. */
static void reject_into(openrdma_model *m, uint64_t at, uint32_t slot, int phase) {
    CHECK_OK(m, openrdma_push_doorbell(m, at, 0));
    openrdma_output o;
    uint32_t n = 0;
    CHECK_OK(m, openrdma_pop_outputs(m, &o, 1, &n));
    CHECK(n == 1 && o.kind == OPENRDMA_OUTPUT_KIND_COMPLETION, "%u outputs, kind %u", n, o.kind);
    if (n != 1) return;
    const openrdma_completion_fields *c = &o.completion;
    CHECK(c->in_queue && c->cq == 1 && c->slot == slot && c->addr == 0x50000000u + 32u * slot,
          "written to queue %u slot %u at %#" PRIx64, c->cq, c->slot, c->addr);
    CHECK(c->phase == phase && o.len == 32 && o.bytes[31] == (uint8_t)phase,
          "phase %d, byte 31 %#x", c->phase, o.len == 32 ? o.bytes[31] : 0xFFu);
    CHECK(c->status == 0x01 && o.bytes[8] == 0x01, "BAD_VERSION, status %#x", c->status);
    CHECK(c->has_timestamp && c->timestamp == (uint32_t)at, "timestamp %u at %" PRIu64,
          c->timestamp, at);
    CHECK(strstr(o.json, "\"queue\":{\"cq\":1") != NULL, "JSON: %s", o.json);
}

static void queues(void) {
    openrdma_model *m = example_model();
    if (m == NULL) return;
    CHECK_OK(m, openrdma_push_create_cq(m, 0, 1, 0x50000000u, 2));
    CHECK_OK(m, openrdma_push_set_error_cq(m, 0, 1));
    openrdma_qp_config qp = {.qpn = 18, .peer_qpn = 34, .evs = EVS, .ev_count = 8,
                             .has_send_cq = 1, .send_cq = 1, .has_recv_cq = 1, .recv_cq = 1};
    CHECK_OK(m, openrdma_push_create_qp(m, 0, &qp));
    reject_into(m, 100, 0, 1);
    reject_into(m, 200, 1, 1);
    CHECK_OK(m, openrdma_push_cq_consumer(m, 250, 1, 1));
    reject_into(m, 300, 0, 0);
    /* One at a time, by field name. */
    CHECK_OK(m, openrdma_push_cq_consumer(m, 350, 1, 3));
    CHECK_OK(m, openrdma_push_doorbell(m, 400, 0));
    uint32_t kind = 0;
    uint64_t at = 0, v = 0;
    CHECK_OK(m, openrdma_next_output(m, &kind, &at));
    CHECK(kind == OPENRDMA_OUTPUT_KIND_COMPLETION, "kind %u", kind);
    CHECK_OK(m, openrdma_output_field(m, "completion.slot", &v));
    CHECK(v == 1, "slot %" PRIu64, v);
    CHECK_OK(m, openrdma_output_field(m, "completion.phase", &v));
    CHECK(v == 0, "phase %" PRIu64, v);
    CHECK_OK(m, openrdma_output_field(m, "completion.in_queue", &v));
    CHECK(v == 1, "in_queue %" PRIu64, v);

    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-CQ-003", openrdma_push_cq_consumer(m, 500, 1, 9));
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-CQ-001", openrdma_push_create_cq(m, 500, 2, 0, 3));
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-CQ-002", openrdma_push_set_error_cq(m, 500, 7));
    qp.qpn = 19;
    qp.has_send_cq = 2;
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "cfg->has_send_cq",
                openrdma_push_create_qp(m, 500, &qp));
    qp.has_send_cq = 1;
    qp.send_cq = 5;
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-CQ-002", openrdma_push_create_qp(m, 500, &qp));
    CHECK_FAILS(m, OPENRDMA_STATUS_INVALID_ARGUMENT, "local_read",
                openrdma_push_register_local(m, 500, 1, 0, 4096, 2));
    CHECK_OK(m, openrdma_push_register_local(m, 500, 1, 0, 4096, 1));
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-REGION-002",
                openrdma_push_register_local(m, 500, 1, 0, 4096, 1));
    CHECK_OK(m, openrdma_push_deregister_local(m, 500, 1));
    CHECK_FAILS(m, OPENRDMA_STATUS_REFUSED, "API-REGION-002", openrdma_push_deregister_local(m, 500, 1));
    openrdma_destroy(m);
}

/* ----- 4. scenario replay ------------------------------------------------------------- */

typedef struct {
    char **lines;
    size_t count;
} lines_t;

static int read_lines(const char *path, lines_t *out) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    out->lines = NULL;
    out->count = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
        char **grown = realloc(out->lines, (out->count + 1) * sizeof *grown);
        if (grown == NULL) break;
        out->lines = grown;
        out->lines[out->count++] = strdup(line);
    }
    free(line);
    fclose(f);
    return 0;
}

/* The n-th space-separated field of a line (0-based), and the rest of the line from it. */
static const char *field_at(const char *line, unsigned n) {
    while (n-- > 0) {
        line = strchr(line, ' ');
        if (line == NULL) return "";
        line++;
    }
    return line;
}

static uint64_t num(const char *line, unsigned n) { return strtoull(field_at(line, n), NULL, 10); }

static const char *kind_name(uint32_t kind) {
    static const char *names[] = {"none", "frame", "dma_write", "flag_write", "completion", "report"};
    return kind < 6 ? names[kind] : "?";
}

typedef struct {
    const char *name;
    lines_t *file;
    size_t next_expect; /* index of the line searched from for the next expect record */
    unsigned compared;
} replay_t;

/* The next expect record, without consuming it. */
static const char *peek_expect(replay_t *r) {
    while (r->next_expect < r->file->count) {
        const char *l = r->file->lines[r->next_expect];
        if (strncmp(l, "expect ", 7) == 0) return l;
        r->next_expect++;
    }
    return NULL;
}

/* Whether a report is the next expect record. A scenario records only the reports the
 * scoreboard compares; the others are skipped. */
static int report_expected(replay_t *r, const openrdma_output *o) {
    const char *e = peek_expect(r);
    return e != NULL && strncmp(e, "expect report ", 14) == 0 && num(e, 2) == o->at_ns &&
           strcmp(field_at(e, 4), o->json) == 0;
}

/* Compares one output with the next expect record. */
static void compare(replay_t *r, const openrdma_output *o) {
    if (o->kind == OPENRDMA_OUTPUT_KIND_REPORT && !report_expected(r, o)) return;
    const char *e = peek_expect(r);
    CHECK(e != NULL, "%s: unexpected %s output at %" PRIu64, r->name, kind_name(o->kind), o->at_ns);
    if (e == NULL) return;
    r->next_expect++;
    r->compared++;
    const char *kind = field_at(e, 1);
    size_t klen = strcspn(kind, " ");
    CHECK(strlen(kind_name(o->kind)) == klen && strncmp(kind, kind_name(o->kind), klen) == 0,
          "%s: output %u is a %s, expected: %s", r->name, r->compared, kind_name(o->kind), e);
    CHECK(o->at_ns == num(e, 2), "%s: output %u at %" PRIu64 ", expected: %s", r->name,
          r->compared, o->at_ns, e);
    const char *json = NULL;
    switch (o->kind) {
    case OPENRDMA_OUTPUT_KIND_FRAME: {
        const openrdma_frame_fields *f = &o->frame;
        CHECK(o->port == num(e, 3) && f->opcode == num(e, 4) && f->dest_qp == num(e, 5) &&
                  f->psn == num(e, 6) && f->has_seth == num(e, 7) && f->cack_psn == num(e, 8) &&
                  f->sack_bitmap == num(e, 9) && f->has_neth == num(e, 10) &&
                  f->nack_psn == num(e, 11),
              "%s: frame %u fields differ from: %.120s", r->name, r->compared, e);
        CHECK(bytes_equal_hex(o->bytes, o->len, field_at(e, 12)), "%s: frame %u bytes differ",
              r->name, r->compared);
        break;
    }
    case OPENRDMA_OUTPUT_KIND_DMA_WRITE:
        CHECK(o->qpn == num(e, 3) && o->dma_write.psn == num(e, 4) &&
                  o->dma_write.msn == num(e, 5) && o->dma_write.va == num(e, 6) &&
                  o->len == num(e, 7),
              "%s: DMA write %u differs from: %.160s", r->name, r->compared, e);
        json = field_at(e, 8);
        break;
    case OPENRDMA_OUTPUT_KIND_FLAG_WRITE:
        CHECK(o->qpn == num(e, 3) && o->flag_write.side == num(e, 4) &&
                  o->flag_write.msn == num(e, 5) && o->flag_write.addr == num(e, 6) &&
                  o->flag_write.value == num(e, 7) && o->len == 8,
              "%s: flag write %u differs from: %s", r->name, r->compared, e);
        json = field_at(e, 8);
        break;
    case OPENRDMA_OUTPUT_KIND_COMPLETION: {
        const openrdma_completion_fields *c = &o->completion;
        CHECK(o->qpn == num(e, 3) && c->side == num(e, 4) && c->wr_id == num(e, 5) &&
                  c->status == num(e, 6) && c->msn == num(e, 7) && c->byte_len == num(e, 8) &&
                  c->imm == num(e, 9) && c->has_imm == num(e, 10) &&
                  c->is_receive == num(e, 11) && o->len == 32,
              "%s: completion %u differs from: %s", r->name, r->compared, e);
        json = field_at(e, 12);
        break;
    }
    case OPENRDMA_OUTPUT_KIND_REPORT:
        CHECK(o->qpn == num(e, 3), "%s: report %u differs from: %s", r->name, r->compared, e);
        json = field_at(e, 4);
        break;
    default:
        CHECK(0, "%s: output of kind %u", r->name, o->kind);
    }
    if (json != NULL) {
        CHECK(strcmp(o->json, json) == 0, "%s: output %u is %s, expected %s", r->name,
              r->compared, o->json, json);
    }
}

/* Pops every output and compares it. */
static void drain(replay_t *r, openrdma_model *m) {
    openrdma_output out[5]; /* small on purpose: several pops per batch */
    uint32_t n = 0;
    do {
        CHECK_OK(m, openrdma_pop_outputs(m, out, 5, &n));
        for (uint32_t i = 0; i < n; i++)
            compare(r, &out[i]);
    } while (n > 0);
}

static void replay(const char *path) {
    lines_t file;
    if (read_lines(path, &file) != 0 || file.count == 0 || strncmp(file.lines[0], "manifest ", 9) != 0) {
        fprintf(stderr, "%s: cannot read a scenario\n", path);
        exit(2);
    }
    replay_t r = {.name = path, .file = &file, .next_expect = 0, .compared = 0};
    openrdma_model *m = NULL;
    CHECK_OK(NULL, openrdma_create(field_at(file.lines[0], 1), &m));
    if (m == NULL) return;
    unsigned expects = 0;
    for (size_t i = 1; i < file.count; i++) {
        const char *l = file.lines[i];
        openrdma_status s = OPENRDMA_STATUS_OK;
        if (strncmp(l, "expect ", 7) == 0) {
            expects++;
            continue;
        } else if (strncmp(l, "inject host ", 12) == 0) {
            s = openrdma_push_host_json(m, num(l, 2), field_at(l, 3));
        } else if (strncmp(l, "inject cpu ", 11) == 0) {
            s = openrdma_push_cpu_json(m, num(l, 2), field_at(l, 3));
        } else if (strncmp(l, "inject frame ", 13) == 0) {
            uint32_t len = 0;
            uint8_t *bytes = from_hex(field_at(l, 4), &len);
            CHECK(bytes != NULL, "%s: line %zu: bad hex", path, i + 1);
            s = openrdma_push_frame(m, num(l, 2), (uint16_t)num(l, 3), bytes, len);
            free(bytes);
        } else if (strncmp(l, "end ", 4) == 0) {
            s = openrdma_advance(m, num(l, 1));
        } else {
            CHECK(0, "%s: line %zu is not a record: %.40s", path, i + 1, l);
        }
        /* A scenario may give a command the model must refuse: it has no effect. */
        CHECK(s == OPENRDMA_STATUS_OK || s == OPENRDMA_STATUS_REFUSED, "%s: line %zu: %s: %s",
              path, i + 1, openrdma_status_name(s), openrdma_last_error(m));
        drain(&r, m);
    }
    const char *left = peek_expect(&r);
    CHECK(left == NULL, "%s: expected but never produced: %.160s", path, left);
    CHECK(r.compared == expects && expects > 0, "%s: %u of %u expect records compared", path,
          r.compared, expects);
    openrdma_destroy(m);
    for (size_t i = 0; i < file.count; i++) free(file.lines[i]);
    free(file.lines);
}

int main(int argc, char **argv) {
    example();
    errors();
    queues();
    for (int i = 1; i < argc; i++) replay(argv[i]);
    printf("scenario_test: %u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
