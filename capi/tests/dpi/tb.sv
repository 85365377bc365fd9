// A SystemVerilog testbench that uses the OpenRDMA golden model through DPI-C: the
// example of the capi README, run by `cargo test -p openrdma-capi --test dpi -- --ignored`
// with Verilator. It gives the model one MRC write and checks the SACK, the DMA write and
// the completion flag it produces; any mismatch ends the simulation with $fatal.

module tb;
  // ---- the C interface (capi/include/openrdma.h), imported as is ---------------------
  // openrdma_status is a uint32_t: int unsigned. The instance is a chandle. Frame bytes
  // travel as a fixed-size unpacked array of bytes, which DPI-C passes as a pointer to
  // its first element (`const uint8_t *`); the length is a separate argument.
  localparam int unsigned MAX_FRAME = 9216;
  typedef byte unsigned frame_t[MAX_FRAME];

  import "DPI-C" function int unsigned openrdma_abi_version();
  import "DPI-C" function string openrdma_version();
  import "DPI-C" function string openrdma_last_error(input chandle m);
  import "DPI-C" function int unsigned openrdma_create(input string manifest_json,
                                                       output chandle m);
  import "DPI-C" function void openrdma_destroy(input chandle m);
  import "DPI-C" function int unsigned openrdma_push_host_json(input chandle m,
      input longint unsigned at_ns, input string json);
  import "DPI-C" function int unsigned openrdma_push_register_region(input chandle m,
      input longint unsigned at_ns, input int unsigned rkey, input longint unsigned base,
      input longint unsigned len, input byte unsigned remote_write);
  import "DPI-C" function int unsigned openrdma_push_frame(input chandle m,
      input longint unsigned at_ns, input shortint unsigned port, input frame_t bytes,
      input int unsigned len);
  import "DPI-C" function int unsigned openrdma_advance(input chandle m,
      input longint unsigned until_ns);
  import "DPI-C" function int unsigned openrdma_next_output(input chandle m,
      output int unsigned kind, output longint unsigned at_ns);
  import "DPI-C" function int unsigned openrdma_output_field(input chandle m,
      input string name, output longint unsigned value);
  import "DPI-C" function int unsigned openrdma_output_bytes(input chandle m,
      output frame_t data, input int unsigned cap, output int unsigned len);
  import "DPI-C" function string openrdma_output_json(input chandle m);
  // Through the shim of open_array_shim.c: a frame as an open array (a dynamic array here).
  import "DPI-C" function int unsigned sv_openrdma_push_frame(input chandle m,
      input longint unsigned at_ns, input shortint unsigned port, input byte unsigned bytes[]);

  localparam int unsigned OK = 0;
  localparam int unsigned KIND_NONE = 0, KIND_FRAME = 1, KIND_DMA_WRITE = 2,
                          KIND_FLAG_WRITE = 3;

  // ---- helpers -----------------------------------------------------------------------
  chandle m;

  task automatic ok(input int unsigned status, input string what);
    if (status != OK) $fatal(1, "%s: status %0d: %s", what, status, openrdma_last_error(m));
  endtask

  function automatic longint unsigned field(input string name);
    longint unsigned v;
    ok(openrdma_output_field(m, name, v), name);
    return v;
  endfunction

  function automatic int unsigned from_hex(input string hex, output frame_t b);
    for (int i = 0; i < hex.len() / 2; i++) b[i] = 8'(hex.substr(2 * i, 2 * i + 1).atohex());
    return hex.len() / 2;
  endfunction

  // ---- the test ----------------------------------------------------------------------
  // The manifest, as the adapter protocol's `start` carries it: 4 ports, PMTU 1024.
  localparam string MANIFEST = {"{\"name\":\"dpi-example\",\"description\":\"DPI-C\",",
                                "\"requirements\":[],\"ports\":4,",
                                "\"nic\":{\"pmtu\":1024,\"mpr\":1}}"};
  localparam string CREATE_QP = {"{\"command\":\"create_qp\",\"qpn\":17,\"peer_qpn\":33,",
      "\"initial_psn\":0,\"peer_initial_psn\":0,\"evs\":[3239051264,3239117073],",
      "\"recv_flag_base\":537985024,\"recv_flag_slots\":256}"};
  // One MRC WRITE_ONLY to QP 17, PSN 0, 64 bytes at 0x10000000 (rkey 0x1234), AckReq.
  localparam string WRITE = {
      "02000000000102000000000208004500008400004000401126670a0000020a000001a00012b70070",
      "0000ca00ffff0000001190000000000100000000000100000000100000000000123400000040bbbc",
      "bdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4",
      "e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fa6d92a8c0"};

  initial begin
    frame_t frame, out;
    int unsigned len, kind, sacks = 0, dmas = 0, flags = 0;
    int unsigned frame_len;
    longint unsigned at;

    if (openrdma_abi_version() != 2) $fatal(1, "ABI %0d", openrdma_abi_version());
    ok(openrdma_create(MANIFEST, m), "create");
    ok(openrdma_push_register_region(m, 0, 'h1234, 'h1000_0000, 'h100_0000, 1), "region");
    ok(openrdma_push_host_json(m, 0, CREATE_QP), "create_qp");
    frame_len = from_hex(WRITE, frame);
    ok(openrdma_push_frame(m, 1000, 0, frame, frame_len), "frame");
    ok(openrdma_advance(m, 3000), "advance");

    forever begin
      ok(openrdma_next_output(m, kind, at), "next_output");
      if (kind == KIND_NONE) break;
      case (kind)
        KIND_FRAME:
          if (field("frame.has_seth") == 1) begin
            sacks++;
            if (field("frame.cack_psn") != 0 || field("frame.dest_qp") != 33)
              $fatal(1, "SACK: %s", openrdma_output_json(m));
            ok(openrdma_output_bytes(m, out, MAX_FRAME, len), "bytes");
            if (len != 94 || out[42] != 8'hDC) $fatal(1, "SACK of %0d bytes", len);
          end
        KIND_DMA_WRITE: begin
          dmas++;
          if (field("dma_write.va") != 'h1000_0000 || field("len") != 64)
            $fatal(1, "DMA write: %s", openrdma_output_json(m));
          ok(openrdma_output_bytes(m, out, MAX_FRAME, len), "payload");
          for (int i = 0; i < 64; i++)
            if (out[i] != frame[146 - 4 - 64 + i]) $fatal(1, "payload byte %0d", i);
        end
        KIND_FLAG_WRITE: begin
          flags++;
          if (field("flag_write.addr") != 537985024 || field("flag_write.value") != 64'd549755813952)
            $fatal(1, "flag: %s", openrdma_output_json(m));
        end
        default: ;
      endcase
    end
    if (sacks != 1 || dmas != 1 || flags != 1)
      $fatal(1, "%0d SACKs, %0d DMA writes, %0d flags", sacks, dmas, flags);

    // The same frame again, through the open-array shim: an array of exactly the frame's
    // length (a simulator that passes dynamic arrays to open arrays takes those too). A
    // duplicate: answered with a SACK at once, not placed again.
    begin
      byte unsigned again[WRITE.len() / 2];
      foreach (again[i]) again[i] = frame[i];
      ok(sv_openrdma_push_frame(m, 4000, 1, again), "duplicate");
    end
    sacks = 0;
    dmas = 0;
    forever begin
      ok(openrdma_next_output(m, kind, at), "next_output");
      if (kind == KIND_NONE) break;
      if (kind == KIND_DMA_WRITE) dmas++;
      if (kind == KIND_FRAME && field("frame.has_seth") == 1) sacks++;
    end
    if (sacks != 1 || dmas != 0) $fatal(1, "duplicate: %0d SACKs, %0d DMA writes", sacks, dmas);
    openrdma_destroy(m);
    $display("dpi-c: openrdma %s: SACK, DMA write and flag as expected; duplicate SACKed",
             openrdma_version());
    $finish;
  end
endmodule
