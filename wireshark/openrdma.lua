-- OpenRDMA dissector for Wireshark (written for and tested with Wireshark 4.0, Lua 5.2).
--
-- 1. Protocol `openrdma` ("OpenRDMA MRC") takes over UDP port 4791 (RoCEv2). Packets whose
--    BTH opcode is an MRC opcode (0xC6-0xCB writes, 0xD1 ACK, 0xD8/0xD9 endpoint request and
--    response, 0xDC SACK, 0xDD NACK, 0xDE probe) are dissected here: the BTH with MRC's byte 8
--    (ack_req, rtx, ts), the extension headers of the opcode (TSETH only when BTH ts is set),
--    the payload, the pad and the ICRC (little-endian, verified). Every other opcode is handed
--    back, unchanged, to the dissector that held port 4791 before (Wireshark's InfiniBand
--    dissector), so standard RoCEv2 traffic looks as it always did. A packet that the capture
--    cut is decoded as far as the captured bytes go (see `hand_on` for a standard one).
-- 2. Protocol `openrdma.host` ("OpenRDMA host record") dissects the host records of scenario
--    files: packets on an interface of link type USER0 (147) that start with "ORDM". The
--    8-byte header is shown as fields and the JSON body is handed to Wireshark's JSON
--    dissector. Other USER0 packets go to the dissector that held USER0 before.
--
-- Field names are those of `openrdma dissect --json`: `openrdma.<header>.<field>`, with the
-- header and field names of the JSON keys (e.g. openrdma.bth.psn, openrdma.seth.cack_psn).
--
-- Install: copy this one file into the personal plugins directory,
--   mkdir -p ~/.local/lib/wireshark/plugins && cp wireshark/openrdma.lua ~/.local/lib/wireshark/plugins/
-- or load it for one run:
--   tshark -X lua_script:wireshark/openrdma.lua -r capture.pcapng

local ROCEV2_PORT = 4791

-- Lua 5.2 has bit32; Lua 5.3 and later have bit operators instead (loaded from a string so
-- that a 5.2 parser never sees them).
local bit32 = bit32 or load([[
    return {
        band = function(a, b) return a & b end,
        bor = function(a, b) return a | b end,
        bxor = function(a, b) return a ~ b end,
        rshift = function(a, n) return (a & 0xFFFFFFFF) >> n end,
        bnot = function(a) return ~a & 0xFFFFFFFF end,
    }
]])()

local mrc = Proto("openrdma", "OpenRDMA MRC")
local host = Proto("openrdma.host", "OpenRDMA host record")

---------------------------------------------------------------------------------------------
-- Value strings
---------------------------------------------------------------------------------------------

-- Opcode names, as in the codec's opcode table.
local OPCODES = {
    [0x00] = "RC_SEND_FIRST", [0x01] = "RC_SEND_MIDDLE", [0x02] = "RC_SEND_LAST",
    [0x03] = "RC_SEND_LAST_IMM", [0x04] = "RC_SEND_ONLY", [0x05] = "RC_SEND_ONLY_IMM",
    [0x06] = "RC_WRITE_FIRST", [0x07] = "RC_WRITE_MIDDLE", [0x08] = "RC_WRITE_LAST",
    [0x09] = "RC_WRITE_LAST_IMM", [0x0A] = "RC_WRITE_ONLY", [0x0B] = "RC_WRITE_ONLY_IMM",
    [0x0C] = "RC_READ_REQUEST", [0x0D] = "RC_READ_RESPONSE_FIRST",
    [0x0E] = "RC_READ_RESPONSE_MIDDLE", [0x0F] = "RC_READ_RESPONSE_LAST",
    [0x10] = "RC_READ_RESPONSE_ONLY", [0x11] = "RC_ACKNOWLEDGE",
    [0x12] = "RC_ATOMIC_ACKNOWLEDGE", [0x13] = "RC_COMPARE_SWAP", [0x14] = "RC_FETCH_ADD",
    [0x16] = "RC_SEND_LAST_INV", [0x17] = "RC_SEND_ONLY_INV", [0x1C] = "RC_FLUSH",
    [0x1D] = "RC_ATOMIC_WRITE",
    [0x64] = "UD_SEND_ONLY", [0x65] = "UD_SEND_ONLY_IMM", [0x81] = "CNP",
    [0xC6] = "MRC_WRITE_FIRST", [0xC7] = "MRC_WRITE_MIDDLE", [0xC8] = "MRC_WRITE_LAST",
    [0xC9] = "MRC_WRITE_LAST_IMM", [0xCA] = "MRC_WRITE_ONLY", [0xCB] = "MRC_WRITE_ONLY_IMM",
    [0xD1] = "MRC_ACKNOWLEDGE", [0xD8] = "MRC_ENDPOINT_REQUEST",
    [0xD9] = "MRC_ENDPOINT_RESPONSE", [0xDC] = "MRC_RELIABILITY_SACK",
    [0xDD] = "MRC_RELIABILITY_NACK", [0xDE] = "MRC_RELIABILITY_PROBE",
}

-- NETH reasons (numbering shared with Ultra Ethernet).
local NACK_REASONS = {
    [0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP",
    [0x07] = "NO_PKT_BUFFER", [0x0A] = "NO_RESOURCE", [0x0B] = "PSN_OOR_WINDOW",
    [0x19] = "UNEXP_EVENT",
}

-- SETH m: what the responder says of the entropy value that carried the packet.
local EV_MARKS = { [0] = "NONE", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP", [3] = "RESERVED" }

-- ERTH / EETH operation.
local ENDPOINT_OPS = { [0] = "PORT_STATUS_UPDATE", [1] = "EV_PROBE" }

-- Host record kinds.
local HOST_KINDS = { [1] = "host command", [2] = "CPU command", [3] = "event" }

---------------------------------------------------------------------------------------------
-- Headers: name (the JSON key), title, length, fields in wire order.
--
-- A field is { name, kind, offset, mask, value_string, label }. Kinds: u8/u16/u24/u32/u64
-- (decimal), x8/x16/x24/x32/x64 (hexadecimal), i16 (signed), b8/b16 (one bit of an 8- or
-- 16-bit word, given by the mask), bytesN (N opaque bytes). A mask selects the bits of a field
-- that shares its bytes; Wireshark shifts the value right by the mask's trailing zeros, as the
-- codec does, so a reserved field whose mask is not shifted (bth.resv8, seth.resv1) keeps its
-- bits in place exactly like the JSON.
---------------------------------------------------------------------------------------------

local HEADERS = {
    bth = {
        spec_name = "BTH", len = 12, title = "Base Transport Header",
        fields = {
            { "opcode", "x8", 0, nil, OPCODES, "Opcode" },
            { "solicited", "b8", 1, 0x80, nil, "Solicited event" },
            { "mig_req", "b8", 1, 0x40, nil, "MigReq" },
            { "pad_count", "u8", 1, 0x30, nil, "Pad count" },
            { "tver", "u8", 1, 0x0F, nil, "Transport header version" },
            { "pkey", "x16", 2, nil, nil, "P_Key" },
            { "fecn", "b8", 4, 0x80, nil, "FECN" },
            { "becn", "b8", 4, 0x40, nil, "BECN" },
            { "resv6", "u8", 4, 0x3F, nil, "Reserved (byte 4)" },
            { "dest_qp", "x24", 5, nil, nil, "Destination QP" },
            { "ack_req", "b8", 8, 0x80, nil, "AckReq" },
            { "rtx", "b8", 8, 0x20, nil, "Retransmission (rtx)" },
            { "ts", "b8", 8, 0x10, nil, "TSETH present (ts)" },
            { "resv8", "x8", 8, 0x4F, nil, "Reserved (byte 8, bits 6 and 3:0)" },
            { "psn", "u24", 9, nil, nil, "PSN" },
        },
    },
    meth = {
        spec_name = "METH", len = 4, title = "MRC Message Extended Transport Header (METH)",
        fields = {
            { "rqmsn", "u16", 0, nil, nil, "RQMSN" },
            { "msn", "u16", 2, nil, nil, "MSN" },
        },
    },
    tseth = {
        spec_name = "TSETH", len = 4, title = "MRC Timestamp Extended Transport Header (TSETH)",
        fields = {
            { "tx_timestamp", "u16", 0, nil, nil, "Transmit timestamp" },
            { "tsr", "b16", 2, 0x8000, nil, "tsr" },
            { "resv", "u16", 2, 0x7FF0, nil, "Reserved" },
            { "ftype", "u16", 2, 0x000F, nil, "ftype" },
        },
    },
    reth = {
        spec_name = "RETH", len = 16, title = "RDMA Extended Transport Header (RETH)",
        fields = {
            { "va", "x64", 0, nil, nil, "Virtual address" },
            { "rkey", "x32", 8, nil, nil, "R_Key" },
            { "dma_len", "u32", 12, nil, nil, "DMA length" },
        },
    },
    immdt = {
        spec_name = "ImmDt", len = 4, title = "Immediate Data (ImmDt)",
        fields = {
            { "imm", "x32", 0, nil, nil, "Immediate data" },
        },
    },
    aeth = {
        spec_name = "AETH", len = 4, title = "ACK Extended Transport Header (AETH)",
        fields = {
            { "syndrome", "x8", 0, nil, nil, "Syndrome" },
            { "msn", "u24", 1, nil, nil, "MSN" },
        },
    },
    seth = {
        spec_name = "SETH", len = 28, title = "MRC SACK Extended Transport Header (SETH)",
        fields = {
            { "res_type", "u8", 0, 0xF0, nil, "res_type" },
            { "next_header", "u16", 0, 0x0F80, nil, "Next header" },
            { "m", "u8", 1, 0x60, EV_MARKS, "Entropy value mark (m)" },
            { "resv1", "x8", 1, 0x1D, nil, "Reserved (byte 1, bits 4:2 and 0)" },
            { "pr", "b8", 1, 0x02, nil, "Probe response (pr)" },
            { "ack_psn_offset", "i16", 2, nil, nil, "ACK PSN offset" },
            { "entropy", "x32", 4, nil, nil, "Entropy value" },
            { "spdcid", "u16", 8, nil, nil, "spdcid" },
            { "dpdcid", "u16", 10, nil, nil, "dpdcid" },
            { "resv12", "u8", 12, nil, nil, "Reserved (byte 12)" },
            { "cack_psn", "u24", 13, nil, nil, "Cumulative ACK PSN" },
            { "cc_type", "u8", 16, 0xF0, nil, "cc_type" },
            { "cc_flags", "u8", 16, 0x0F, nil, "cc_flags" },
            { "mpr", "u8", 17, nil, nil, "MPR (units of 128 packets)" },
            { "sack_offset", "i16", 18, nil, nil, "SACK offset" },
            { "sack_bitmap", "x64", 20, nil, nil, "SACK bitmap" },
        },
    },
    cc_state = {
        spec_name = "CC_STATE", len = 8, title = "MRC Congestion Control State (CC_STATE)",
        fields = {
            { "tx_timestamp", "u16", 0, nil, nil, "Reflected transmit timestamp" },
            { "resv", "b8", 2, 0x80, nil, "Reserved" },
            { "ooo_count", "u16", 2, 0x7FFF, nil, "Out-of-order count" },
            { "r_c", "b8", 4, 0x80, nil, "r_c" },
            { "rcv_cwnd_pen", "u8", 4, 0x7F, nil, "Receive window penalty" },
            { "rcvd_bytes", "u24", 5, nil, nil, "Received bytes" },
        },
    },
    neth = {
        spec_name = "NETH", len = 20, title = "MRC NACK Extended Transport Header (NETH)",
        fields = {
            { "res_type", "u8", 0, 0xF0, nil, "res_type" },
            { "next_header", "u16", 0, 0x0F80, nil, "Next header" },
            { "resv1", "x8", 1, 0x7F, nil, "Reserved (byte 1)" },
            { "reason", "x8", 2, nil, NACK_REASONS, "NACK reason" },
            { "vendor_info", "x8", 3, nil, nil, "Vendor information" },
            { "entropy", "x32", 4, nil, nil, "Entropy value" },
            { "spdcid", "u16", 8, nil, nil, "spdcid" },
            { "dpdcid", "u16", 10, nil, nil, "dpdcid" },
            { "resv12", "u8", 12, nil, nil, "Reserved (byte 12)" },
            { "nack_psn", "u24", 13, nil, nil, "NACK PSN" },
            { "cc_type", "u8", 16, 0xF0, nil, "cc_type" },
            { "cc_flags", "u8", 16, 0x0F, nil, "cc_flags" },
            { "resv17", "u8", 17, nil, nil, "Reserved (byte 17)" },
            { "tx_timestamp", "u16", 18, nil, nil, "Reflected transmit timestamp" },
        },
    },
    peth = {
        spec_name = "PETH", len = 16, title = "MRC Probe Extended Transport Header (PETH)",
        fields = {
            { "resv0", "x32", 0, nil, nil, "Reserved (bytes 0-3)" },
            { "probe_id", "u16", 4, nil, nil, "Probe ID" },
            { "resv6", "x16", 6, nil, nil, "Reserved (bytes 6-7)" },
            { "spdcid", "u16", 8, nil, nil, "spdcid" },
            { "dpdcid", "u16", 10, nil, nil, "dpdcid" },
            { "tx_timestamp", "u16", 12, nil, nil, "Transmit timestamp" },
            { "tsr", "b16", 14, 0x8000, nil, "tsr" },
            { "resv14", "u16", 14, 0x7FF0, nil, "Reserved" },
            { "ftype", "u16", 14, 0x000F, nil, "ftype" },
        },
    },
    erth = {
        spec_name = "ERTH", len = 16, title = "MRC Endpoint Request Header (ERTH)",
        fields = {
            { "op", "u8", 0, nil, ENDPOINT_OPS, "Operation" },
            { "resv1", "x24", 1, nil, nil, "Reserved (bytes 1-3)" },
            { "port_status", "x32", 4, nil, nil, "Port status (bit p = port p up)" },
            { "request_id", "u32", 8, nil, nil, "Request ID" },
            { "resv12", "x32", 12, nil, nil, "Reserved (bytes 12-15)" },
        },
    },
    eeth = {
        spec_name = "EETH", len = 36, title = "MRC Endpoint Response Header (EETH)",
        fields = {
            { "op", "u8", 0, nil, ENDPOINT_OPS, "Operation" },
            { "status", "u8", 1, nil, nil, "Status (0 = success)" },
            { "resv2", "x16", 2, nil, nil, "Reserved (bytes 2-3)" },
            { "port_status", "x32", 4, nil, nil, "Port status (bit p = port p up)" },
            { "request_id", "u32", 8, nil, nil, "Request ID" },
            { "data", "bytes24", 12, nil, nil, "Data" },
        },
    },
}

-- The extension headers of each MRC opcode, in wire order (the codec's opcode table).
-- "tseth" is present only when BTH ts is set. `payload` says whether the opcode carries data.
local WRITE = { "meth", "tseth", "reth" }
local WRITE_IMM = { "meth", "tseth", "reth", "immdt" }
local STACKS = {
    [0xC6] = { headers = WRITE, payload = true },
    [0xC7] = { headers = WRITE, payload = true },
    [0xC8] = { headers = WRITE, payload = true },
    [0xC9] = { headers = WRITE_IMM, payload = true },
    [0xCA] = { headers = WRITE, payload = true },
    [0xCB] = { headers = WRITE_IMM, payload = true },
    [0xD1] = { headers = { "aeth" }, payload = false },
    [0xD8] = { headers = { "erth" }, payload = false },
    [0xD9] = { headers = { "eeth" }, payload = false },
    [0xDC] = { headers = { "seth", "cc_state" }, payload = false },
    [0xDD] = { headers = { "neth" }, payload = false },
    [0xDE] = { headers = { "peth" }, payload = false },
}

---------------------------------------------------------------------------------------------
-- Fields
---------------------------------------------------------------------------------------------

local SIZES = { u8 = 1, x8 = 1, b8 = 1, u16 = 2, x16 = 2, b16 = 2, i16 = 2, u24 = 3, x24 = 3,
    u32 = 4, x32 = 4, u64 = 8, x64 = 8 }

local all_fields = {}

local function make_field(abbr, kind, mask, vs, label)
    local b = kind:sub(1, 1) == "x" and base.HEX or base.DEC
    local width = kind:sub(2)
    if kind == "b8" then
        return ProtoField.bool(abbr, label, 8, nil, mask)
    elseif kind == "b16" then
        return ProtoField.bool(abbr, label, 16, nil, mask)
    elseif kind == "i16" then
        return ProtoField.int16(abbr, label, base.DEC)
    elseif kind:sub(1, 5) == "bytes" then
        return ProtoField.bytes(abbr, label)
    elseif width == "8" then
        return ProtoField.uint8(abbr, label, b, vs, mask)
    elseif width == "16" then
        return ProtoField.uint16(abbr, label, b, vs, mask)
    elseif width == "24" then
        return ProtoField.uint24(abbr, label, b, vs, mask)
    elseif width == "32" then
        return ProtoField.uint32(abbr, label, b, vs, mask)
    elseif width == "64" then
        return ProtoField.uint64(abbr, label, b, vs, mask)
    end
    error("openrdma.lua: unknown field kind " .. kind)
end

-- In wire order, so that the fields register in a stable order.
local HEADER_ORDER = { "bth", "meth", "tseth", "reth", "immdt", "aeth", "seth", "cc_state", "neth",
    "peth", "erth", "eeth" }

for _, key in ipairs(HEADER_ORDER) do
    local h = HEADERS[key]
    h.key = key
    h.item = ProtoField.none("openrdma." .. key, h.title)
    all_fields[#all_fields + 1] = h.item
    for _, d in ipairs(h.fields) do
        local name, kind, off, mask, vs, label = d[1], d[2], d[3], d[4], d[5], d[6]
        d.name, d.off, d.mask = name, off, mask
        if mask then
            d.shift = 0
            while bit32.band(bit32.rshift(mask, d.shift), 1) == 0 do d.shift = d.shift + 1 end
        end
        d.size = SIZES[kind] or tonumber(kind:sub(6))
        d.field = make_field("openrdma." .. key .. "." .. name, kind, mask, vs, label)
        all_fields[#all_fields + 1] = d.field
    end
end

-- Frame-level fields (the JSON's top-level keys of the same name).
local f_payload = ProtoField.bytes("openrdma.payload", "Payload")
local f_payload_len = ProtoField.uint32("openrdma.payload_len", "Payload length", base.DEC)
local f_pad = ProtoField.bytes("openrdma.pad", "Pad")
local f_pad_len = ProtoField.uint8("openrdma.pad_len", "Pad length", base.DEC)
local f_icrc = ProtoField.uint32("openrdma.icrc", "ICRC (little-endian)", base.HEX)
local f_icrc_status = ProtoField.string("openrdma.icrc_status", "ICRC status")
local f_icrc_computed = ProtoField.uint32("openrdma.icrc_computed", "ICRC computed", base.HEX)
local f_error = ProtoField.string("openrdma.error", "Decode error")
for _, f in ipairs({ f_payload, f_payload_len, f_pad, f_pad_len, f_icrc, f_icrc_status,
    f_icrc_computed, f_error }) do
    all_fields[#all_fields + 1] = f
end
mrc.fields = all_fields

local e_truncated = ProtoExpert.new("openrdma.expert.truncated", "Packet too short",
    expert.group.MALFORMED, expert.severity.ERROR)
local e_icrc_bad = ProtoExpert.new("openrdma.expert.icrc_bad", "ICRC does not match",
    expert.group.CHECKSUM, expert.severity.ERROR)
local e_unexpected_payload = ProtoExpert.new("openrdma.expert.unexpected_payload",
    "This opcode carries no payload", expert.group.PROTOCOL, expert.severity.WARN)
local e_pad_nonzero = ProtoExpert.new("openrdma.expert.pad_nonzero", "Pad bytes should be zero",
    expert.group.PROTOCOL, expert.severity.WARN)
local e_unknown_reason = ProtoExpert.new("openrdma.expert.unknown_reason",
    "NACK reason not known", expert.group.PROTOCOL, expert.severity.WARN)
local e_fatal = ProtoExpert.new("openrdma.expert.fatal_nack",
    "Fatal NACK: the QP goes to error, nothing is retried", expert.group.SEQUENCE,
    expert.severity.WARN)
local e_rtx = ProtoExpert.new("openrdma.expert.retransmission", "Retransmission (rtx set)",
    expert.group.SEQUENCE, expert.severity.NOTE)
local e_cut = ProtoExpert.new("openrdma.expert.cut",
    "Cut by the capture: decoded as far as the captured bytes go", expert.group.UNDECODED,
    expert.severity.NOTE)
mrc.experts = { e_truncated, e_icrc_bad, e_unexpected_payload, e_pad_nonzero, e_unknown_reason,
    e_fatal, e_rtx, e_cut }

mrc.prefs.verify_icrc = Pref.bool("Verify the ICRC", true,
    "Compute the ICRC over the IP, UDP and transport headers and compare it with the trailer")

---------------------------------------------------------------------------------------------
-- ICRC: CRC-32 (reflected IEEE polynomial, as zlib) over 8 bytes of 0xFF, the IP header, the
-- UDP header and the BTH with their variant fields set to ones, then everything after the BTH
-- up to the trailer. The trailer is little-endian.
---------------------------------------------------------------------------------------------

local band, bxor, rshift, bnot = bit32.band, bit32.bxor, bit32.rshift, bit32.bnot

local CRC_TABLE = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if band(c, 1) == 1 then
            c = bxor(0xEDB88320, rshift(c, 1))
        else
            c = rshift(c, 1)
        end
    end
    CRC_TABLE[i] = c
end

local function crc_byte(crc, b)
    return bxor(CRC_TABLE[band(bxor(crc, b), 0xFF)], rshift(crc, 8))
end

-- Feeds a ByteArray; `ones[i]` (for 0-based byte index i) is ORed into that byte, which is
-- how the variant fields are set to ones.
local function crc_bytes(crc, ba, ones)
    for i = 0, ba:len() - 1 do
        local b = ba:get_index(i)
        if ones and ones[i] then b = bit32.bor(b, ones[i]) end
        crc = crc_byte(crc, b)
    end
    return crc
end

-- Variant fields: IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label and hop
-- limit; the UDP checksum; BTH byte 4.
local IPV4_ONES = { [1] = 0xFF, [8] = 0xFF, [10] = 0xFF, [11] = 0xFF }
local IPV6_ONES = { [0] = 0x0F, [1] = 0xFF, [2] = 0xFF, [3] = 0xFF, [7] = 0xFF }
local UDP_ONES = { [6] = 0xFF, [7] = 0xFF }
local BTH_ONES = { [4] = 0xFF }

local f_ip = Field.new("ip")
local f_ipv6 = Field.new("ipv6")
local f_udp = Field.new("udp")

-- The bytes of the IP and UDP headers right before `tvb`, from the fields that the IP and UDP
-- dissectors added, or nil when they are not adjacent (tunnels, IPv6 extension headers).
local function ip_udp_headers(tvb)
    local udp_at = tvb:offset() - 8
    local udp
    for _, fi in ipairs({ f_udp() }) do
        if fi.offset == udp_at and fi.len == 8 then udp = fi end
    end
    if not udp then return nil end
    local ips = { f_ip() }
    for _, fi in ipairs({ f_ipv6() }) do ips[#ips + 1] = fi end
    for _, fi in ipairs(ips) do
        if fi.offset + fi.len == udp_at then
            return fi.range:bytes(), udp.range:bytes()
        end
    end
    return nil
end

-- The ICRC of the packet in `tvb` (BTH onwards, trailer excluded), or nil.
local function compute_icrc(tvb, icrc_at)
    local ip, udp = ip_udp_headers(tvb)
    if not ip then return nil end
    local version = rshift(ip:get_index(0), 4)
    local ones
    if version == 6 and ip:len() == 40 then
        ones = IPV6_ONES
    elseif version == 4 and ip:len() >= 20 then
        ones = IPV4_ONES
    else
        return nil
    end
    local crc = 0xFFFFFFFF
    for _ = 1, 8 do crc = crc_byte(crc, 0xFF) end
    crc = crc_bytes(crc, ip, ones)
    crc = crc_bytes(crc, udp, UDP_ONES)
    crc = crc_bytes(crc, tvb(0, icrc_at):bytes(), BTH_ONES)
    return bnot(crc)
end

---------------------------------------------------------------------------------------------
-- MRC dissector
---------------------------------------------------------------------------------------------

local udp_port_table = DissectorTable.get("udp.port")
local previous_rocev2 = udp_port_table:get_dissector(ROCEV2_PORT)
local data_dissector = Dissector.get("data")

local function u24(tvb, at) return tvb(at, 3):uint() end

-- Adds one header's subtree and fields; returns the table of its values by field name
-- (numbers; 64-bit fields as UInt64, bytes fields as ByteArray).
local function add_header(tree, tvb, at, h)
    local sub = tree:add(h.item, tvb(at, h.len))
    local v = {}
    for _, d in ipairs(h.fields) do
        local r = tvb(at + d.off, d.size)
        sub:add(d.field, r)
        if d.size == 8 then
            v[d.name] = r:uint64()
        elseif d.size > 4 then
            v[d.name] = r:bytes()
        elseif d.mask then
            v[d.name] = bit32.rshift(bit32.band(r:uint(), d.mask), d.shift)
        else
            v[d.name] = r:uint()
        end
    end
    return sub, v
end

local function hex(n, digits)
    return string.format("0x%0" .. digits .. "x", n)
end

-- PSNs that a SACK bitmap marks received: base + i for every set bit i (modulo 2^24).
local function sacked_psns(base_psn, bitmap_range)
    local hi, lo = bitmap_range(0, 4):uint(), bitmap_range(4, 4):uint()
    local out = {}
    for i = 0, 63 do
        local word, bit = lo, i
        if i >= 32 then word, bit = hi, i - 32 end
        if band(rshift(word, bit), 1) == 1 then
            out[#out + 1] = tostring((base_psn + i) % 0x1000000)
        end
    end
    return out
end

-- Text notes on a header, in words (not fields: the fields are exactly the JSON's).
local function annotate(key, sub, v, tvb, at, pinfo, info)
    if key == "aeth" then
        local kinds = { [0] = "ACK", [1] = "RNR_NAK", [2] = "RESERVED", [3] = "NAK" }
        local kind = kinds[band(rshift(v.syndrome, 5), 3)]
        sub:append_text(string.format(", %s code %d, MSN %d", kind, band(v.syndrome, 0x1F), v.msn))
        info[#info + 1] = string.format("%s MSN=%d", kind, v.msn)
    elseif key == "meth" then
        sub:append_text(string.format(", MSN %d, RQMSN %d", v.msn, v.rqmsn))
        info[#info + 1] = string.format("MSN=%d", v.msn)
    elseif key == "reth" then
        sub:append_text(string.format(", VA 0x%s, R_Key %s, length %d",
            v.va:tohex(), hex(v.rkey, 8), v.dma_len))
    elseif key == "tseth" then
        sub:append_text(string.format(", timestamp %d", v.tx_timestamp))
    elseif key == "seth" then
        local ack_psn = (v.cack_psn + (v.ack_psn_offset >= 0x8000 and v.ack_psn_offset - 0x10000
            or v.ack_psn_offset)) % 0x1000000
        local off = v.sack_offset >= 0x8000 and v.sack_offset - 0x10000 or v.sack_offset
        local base_psn = (v.cack_psn + off) % 0x1000000
        sub:append_text(string.format(", cack_psn %d, bitmap base %d, m %s%s", v.cack_psn,
            base_psn, EV_MARKS[v.m], v.pr == 1 and ", probe response" or ""))
        sub:add(tvb(at + 2, 2), string.format("ACK PSN: %d", ack_psn)):set_generated()
        sub:add(tvb(at + 17, 1), string.format("MPR: %d packets", v.mpr * 128)):set_generated()
        local psns = sacked_psns(base_psn, tvb(at + 20, 8))
        sub:add(tvb(at + 20, 8), string.format("Received from PSN %d: %s", base_psn,
            #psns > 0 and table.concat(psns, ",") or "none")):set_generated()
        info[#info + 1] = string.format("cack_psn=%d base=%d bitmap=0x%s", v.cack_psn,
            base_psn, v.sack_bitmap:tohex())
        if v.m ~= 0 then info[#info + 1] = "m=" .. EV_MARKS[v.m] end
        if v.pr == 1 then info[#info + 1] = "pr" end
    elseif key == "cc_state" then
        sub:append_text(string.format(", timestamp %d, %d out of order, %d bytes",
            v.tx_timestamp, v.ooo_count, v.rcvd_bytes))
    elseif key == "neth" then
        local name = NACK_REASONS[v.reason]
        sub:append_text(string.format(", %s, PSN %d", name or hex(v.reason, 2), v.nack_psn))
        info[#info + 1] = string.format("reason=%s nack_psn=%d", name or hex(v.reason, 2),
            v.nack_psn)
        if not name then sub:add_proto_expert_info(e_unknown_reason) end
        if v.reason == 0x19 then sub:add_proto_expert_info(e_fatal) end
    elseif key == "peth" then
        sub:append_text(string.format(", probe %d", v.probe_id))
        info[#info + 1] = string.format("probe_id=%d", v.probe_id)
    elseif key == "erth" or key == "eeth" then
        local op = ENDPOINT_OPS[v.op] or hex(v.op, 2)
        sub:append_text(string.format(", %s, request %d, ports %s", op, v.request_id,
            hex(v.port_status, 8)))
        info[#info + 1] = string.format("op=%s request_id=%d port_status=%s", op,
            v.request_id, hex(v.port_status, 8))
        if key == "eeth" and v.status ~= 0 then info[#info + 1] = "status=" .. v.status end
    elseif key == "immdt" then
        info[#info + 1] = "imm=" .. hex(v.imm, 8)
    end
end

local function dissect_mrc(tvb, pinfo, tree, opcode)
    local stack = STACKS[opcode]
    -- The layout follows the length on the wire; what is shown, the bytes captured. When the
    -- capture cut the packet, every header it holds whole is shown, the rest is not, and the
    -- ICRC cannot be checked (as `openrdma dissect` does, DEC-CUT-001).
    local len = tvb:reported_len()
    local cap = tvb:len()
    local tvb_cut = cap < len
    local frame_cut = tvb_cut or pinfo.caplen < pinfo.len
    pinfo.cols.protocol = "MRC"
    local root = tree:add(mrc, tvb())
    local name = OPCODES[opcode]
    root:append_text(", " .. name)

    local bth_tree, bth = add_header(root, tvb, 0, HEADERS.bth)
    bth_tree:append_text(string.format(", %s, QP %s, PSN %d", name, hex(bth.dest_qp, 6), bth.psn))
    local info = { name, string.format("QP=%s PSN=%d", hex(bth.dest_qp, 6), bth.psn) }
    if bth.rtx == 1 then
        info[#info + 1] = "rtx"
        bth_tree:add_proto_expert_info(e_rtx)
    end
    if bth.ts == 1 then info[#info + 1] = "ts" end
    if bth.ack_req == 1 then info[#info + 1] = "A" end

    -- The ICRC: the trailer, and whether it is right. Shown even when the headers before it
    -- do not decode, as `openrdma dissect` checks it first.
    local icrc_at = len - 4
    local function add_icrc()
        if frame_cut then
            if icrc_at + 4 <= cap then root:add_le(f_icrc, tvb(icrc_at, 4)) end
            if mrc.prefs.verify_icrc then
                root:add(f_icrc_status, "not_checkable"):set_generated()
            end
            return
        end
        local icrc_range = tvb(icrc_at, 4)
        local icrc = icrc_range:le_uint()
        local icrc_item = root:add_le(f_icrc, icrc_range)
        if mrc.prefs.verify_icrc then
            local computed = compute_icrc(tvb, icrc_at)
            if computed == nil then
                icrc_item:append_text(" [not verified: IP and UDP headers not found]")
            elseif computed == icrc then
                icrc_item:append_text(" [correct]")
                root:add(f_icrc_status, "ok"):set_generated()
            else
                icrc_item:append_text(string.format(" [incorrect, should be %s]",
                    hex(computed, 8)))
                root:add(f_icrc_status, "bad"):set_generated()
                root:add(f_icrc_computed, computed):set_generated()
                icrc_item:add_proto_expert_info(e_icrc_bad)
                info[#info + 1] = "[ICRC bad]"
            end
        end
    end

    local function fail(msg)
        root:add(f_error, msg):set_generated()
        root:add_proto_expert_info(e_truncated, msg)
        info[#info + 1] = "[" .. msg .. "]"
        if len >= 16 then add_icrc() end
        pinfo.cols.info = table.concat(info, " ")
        return cap
    end

    -- The capture ends before the decoder could go on: no error, a note where it stopped.
    local function cut_off()
        local msg = string.format("cut by the capture at byte %d, the packet ends at byte %d",
            tvb:offset() + cap, tvb:offset() + len)
        root:add_proto_expert_info(e_cut, msg)
        info[#info + 1] = "[" .. msg .. "]"
        add_icrc()
        pinfo.cols.info = table.concat(info, " ")
        return cap
    end

    -- The extension headers, payload and pad lie between the BTH and the ICRC.
    -- Offsets in messages are from the start of the frame, as `openrdma dissect` gives them.
    local base_at = tvb:offset()
    if len < 16 then
        if tvb_cut then return cut_off() end
        return fail(string.format("ICRC.icrc truncated at byte %d: need 4, have %d",
            base_at + 12, len - 12))
    end

    local at = 12
    for _, key in ipairs(stack.headers) do
        if key ~= "tseth" or bth.ts == 1 then
            local h = HEADERS[key]
            if tvb_cut and cap <= icrc_at and cap - at < h.len then
                return cut_off()
            end
            if icrc_at - at < h.len then
                -- Name the first field that does not fit.
                for _, d in ipairs(h.fields) do
                    if icrc_at - at < d.off + d.size then
                        return fail(string.format("%s.%s truncated at byte %d: need %d, have %d",
                            h.spec_name, d.name, base_at + at + d.off, d.size,
                            math.max(icrc_at - at - d.off, 0)))
                    end
                end
            end
            local sub, v = add_header(root, tvb, at, h)
            annotate(key, sub, v, tvb, at, pinfo, info)
            at = at + h.len
        end
    end

    local rest = icrc_at - at
    if rest < bth.pad_count then
        if tvb_cut and cap <= icrc_at then return cut_off() end
        return fail(string.format("payload.pad truncated at byte %d: need %d, have %d",
            base_at + at, bth.pad_count, rest))
    end
    -- Payload and pad as far as they were captured; their lengths are the bytes captured.
    local pad_at = icrc_at - bth.pad_count
    local payload_len = math.max(math.min(pad_at, cap) - at, 0)
    local pad_len = math.max(math.min(icrc_at, cap) - pad_at, 0)
    if payload_len > 0 then
        local item = root:add(f_payload, tvb(at, payload_len))
        if not stack.payload then item:add_proto_expert_info(e_unexpected_payload) end
    end
    local len_item = root:add(f_payload_len, payload_len)
    len_item:set_generated()
    if payload_len < pad_at - at then
        len_item:append_text(string.format(" (of %d on the wire)", pad_at - at))
    end
    if stack.payload then info[#info + 1] = "len=" .. payload_len end
    if pad_len > 0 then
        local pad_range = tvb(pad_at, pad_len)
        local item = root:add(f_pad, pad_range)
        for i = 0, pad_len - 1 do
            if pad_range(i, 1):uint() ~= 0 then
                item:add_proto_expert_info(e_pad_nonzero)
                break
            end
        end
    end
    root:add(f_pad_len, pad_len):set_generated()

    if tvb_cut then return cut_off() end
    add_icrc()
    pinfo.cols.info = table.concat(info, " ")
    return len
end

-- Whether the IP and UDP length fields around `tvb` agree with each other and with the bytes
-- there on the wire, as the decoder requires (ENC-LEN-001, ENC-LEN-002): a frame whose lengths
-- disagree does not decode, so it is not dissected as MRC. True when the headers cannot be
-- found. A frame that the capture cut keeps its length on the wire: it is still dissected.
local function lengths_agree(tvb)
    local ip, udp = ip_udp_headers(tvb)
    if not ip then return true end
    local udp_len = udp:get_index(4) * 256 + udp:get_index(5)
    local version = rshift(ip:get_index(0), 4)
    local ip_payload
    if version == 4 and ip:len() >= 20 then
        ip_payload = ip:get_index(2) * 256 + ip:get_index(3) - ip:len()
    elseif version == 6 and ip:len() == 40 then
        ip_payload = ip:get_index(4) * 256 + ip:get_index(5)
    else
        return false
    end
    return udp_len == ip_payload and tvb:reported_len() + 8 >= udp_len
end

-- Hands the packet to another dissector (the InfiniBand dissector, JSON, the one that held a
-- port or link type before).
--
-- A packet that the capture cut is handed on as the bytes captured. Wireshark 4.0 cannot
-- catch, around a dissector called from Lua, the exception a dissector raises where the
-- captured bytes end: it passes through the Lua interpreter and leaves it broken, and after
-- about a hundred such packets every Lua dissector fails with "C stack overflow". Handed
-- the bytes captured, the dissector shows the headers there; where it reads past them it
-- marks the packet malformed, an exception that Wireshark catches.
--
-- When the dissector called raises a caught exception (a malformed packet), Wireshark has
-- already marked the packet in the tree, as it does without this plugin, and then raises it
-- again as a Lua error of `Dissector.call`. That second report is not an error of this
-- script, and is dropped; any other error is raised again.
local function hand_on(dissector, tvb, pinfo, tree)
    if dissector ~= data_dissector and tvb:len() < tvb:reported_len() then
        if tvb:len() == 0 then return 0 end
        tvb = tvb(0, tvb:len()):tvb()
    end
    local ok, result = pcall(dissector.call, dissector, tvb, pinfo, tree)
    if ok then return result end
    if type(result) == "string" and result:find("Dissector_call", 1, true) then
        return tvb:len()
    end
    error(result, 0)
end

function mrc.dissector(tvb, pinfo, tree)
    if not lengths_agree(tvb) then
        return hand_on(data_dissector, tvb, pinfo, tree)
    end
    if tvb:len() >= 1 then
        local opcode = tvb(0, 1):uint()
        if STACKS[opcode] and tvb:len() >= 12 then
            return dissect_mrc(tvb, pinfo, tree, opcode)
        end
    end
    -- Not MRC (or too short for a BTH): standard RoCEv2, for the InfiniBand dissector.
    if previous_rocev2 then
        return hand_on(previous_rocev2, tvb, pinfo, tree)
    end
    return hand_on(data_dissector, tvb, pinfo, tree)
end

udp_port_table:add(ROCEV2_PORT, mrc)

---------------------------------------------------------------------------------------------
-- Host records on LINKTYPE_USER0: "ORDM", version, kind, 2 reserved bytes, UTF-8 JSON.
---------------------------------------------------------------------------------------------

local h_magic = ProtoField.string("openrdma.host.magic", "Magic")
local h_version = ProtoField.uint8("openrdma.host.version", "Version", base.DEC)
local h_kind = ProtoField.uint8("openrdma.host.kind", "Kind", base.DEC, HOST_KINDS)
local h_reserved = ProtoField.uint16("openrdma.host.reserved", "Reserved", base.HEX)
host.fields = { h_magic, h_version, h_kind, h_reserved }

local e_host_version = ProtoExpert.new("openrdma.host.expert.version",
    "Unknown host record version (this dissector knows 1)", expert.group.PROTOCOL,
    expert.severity.WARN)
local e_host_kind = ProtoExpert.new("openrdma.host.expert.kind",
    "Unknown host record kind (1 host command, 2 CPU command, 3 event)", expert.group.PROTOCOL,
    expert.severity.WARN)
local e_host_reserved = ProtoExpert.new("openrdma.host.expert.reserved",
    "Reserved bytes should be zero", expert.group.PROTOCOL, expert.severity.WARN)
host.experts = { e_host_version, e_host_kind, e_host_reserved }

local encap_table = DissectorTable.get("wtap_encap")
local previous_user0 = encap_table:get_dissector(wtap.USER0)
local json_dissector = Dissector.get("json")

function host.dissector(tvb, pinfo, tree)
    if tvb:len() < 8 or tvb(0, 4):string() ~= "ORDM" then
        if previous_user0 then return hand_on(previous_user0, tvb, pinfo, tree) end
        return hand_on(data_dissector, tvb, pinfo, tree)
    end
    pinfo.cols.protocol = "ORDM"
    local version, kind, reserved = tvb(4, 1):uint(), tvb(5, 1):uint(), tvb(6, 2):uint()
    local kind_name = HOST_KINDS[kind] or ("kind " .. kind)
    local sub = tree:add(host, tvb(0, 8))
    sub:append_text(", " .. kind_name)
    sub:add(h_magic, tvb(0, 4))
    local vi = sub:add(h_version, tvb(4, 1))
    if version ~= 1 then vi:add_proto_expert_info(e_host_version) end
    local ki = sub:add(h_kind, tvb(5, 1))
    if not HOST_KINDS[kind] then ki:add_proto_expert_info(e_host_kind) end
    local ri = sub:add(h_reserved, tvb(6, 2))
    if reserved ~= 0 then ri:add_proto_expert_info(e_host_reserved) end
    if tvb:len() > 8 then
        local body = tvb(8):tvb("Host record JSON")
        local text = body(0):string(ENC_UTF_8)
        hand_on(json_dissector or data_dissector, body, pinfo, tree)
        if #text > 120 then text = text:sub(1, 117) .. "..." end
        pinfo.cols.protocol = "ORDM"
        pinfo.cols.info = kind_name .. " " .. text
    else
        pinfo.cols.info = kind_name
    end
    return tvb:len()
end

encap_table:add(wtap.USER0, host)
