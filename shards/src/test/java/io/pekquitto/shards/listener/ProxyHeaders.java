package io.pekquitto.shards.listener;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** PROXY protocol headers written field by field from proxy-protocol.txt, for the decoder's tests. */
final class ProxyHeaders {
    static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    static final int PROXY = 0x21;  // version 2, command PROXY
    static final int LOCAL = 0x20;  // version 2, command LOCAL
    static final int TCP4 = 0x11;   // AF_INET, STREAM
    static final int TCP6 = 0x21;   // AF_INET6, STREAM
    static final int UNIX = 0x31;   // AF_UNIX, STREAM

    private ProxyHeaders() {}

    static byte[] v1(String line) {
        return line.getBytes(StandardCharsets.US_ASCII);
    }

    /** The signature, version/command, family/protocol, the body's length, then the body. */
    static byte[] v2(int versionCommand, int familyProtocol, byte[] body) {
        var out = new ByteArrayOutputStream();
        out.writeBytes(V2_SIGNATURE);
        out.write(versionCommand);
        out.write(familyProtocol);
        out.write(body.length >> 8);
        out.write(body.length & 0xFF);
        out.writeBytes(body);
        return out.toByteArray();
    }

    /** Source and destination addresses, source and destination ports, then TLVs as given. */
    static byte[] addresses(byte[] source, byte[] destination, int sourcePort, int destinationPort, byte[] tlvs) {
        var out = new ByteArrayOutputStream();
        out.writeBytes(source);
        out.writeBytes(destination);
        out.write(sourcePort >> 8);
        out.write(sourcePort & 0xFF);
        out.write(destinationPort >> 8);
        out.write(destinationPort & 0xFF);
        out.writeBytes(tlvs);
        return out.toByteArray();
    }

    static byte[] concat(byte[] first, byte[] second) {
        var out = new ByteArrayOutputStream();
        out.writeBytes(first);
        out.writeBytes(second);
        return out.toByteArray();
    }
}
