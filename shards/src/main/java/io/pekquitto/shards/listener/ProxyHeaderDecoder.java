package io.pekquitto.shards.listener;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads the PROXY protocol header (v1 or v2, HAProxy's proxy-protocol.txt) a connection begins with on
 * a listener with {@code proxy-protocol}, as its bytes come: a header split anywhere is read whole, and
 * the bytes after it in the same chunk are left for the caller, untouched. Bounded: a v1 line has at
 * most {@link #V1_MAX_LENGTH} bytes as the spec says, and a v2 header at most {@link #V2_MAX_BODY}
 * bytes after its 16-byte fixed part (its addresses and TLVs, which are skipped), so a peer cannot make
 * it buffer more than about 1 KiB. The first byte that cannot begin or continue a header fails it:
 * MQTT bytes, say, fail at the first.
 *
 * <p>One per connection, used on one thread at a time. No name is ever resolved: addresses must be
 * numeric literals.
 */
public final class ProxyHeaderDecoder {
    /** The longest v1 line, "PROXY" to CRLF included (proxy-protocol.txt 2.1). */
    public static final int V1_MAX_LENGTH = 107;
    /**
     * The most a v2 header may announce after its fixed part: the largest address block (AF_UNIX, 216
     * bytes) and room for TLVs (HAProxy's SSL and unique-id TLVs, a cloud balancer's endpoint id).
     */
    public static final int V2_MAX_BODY = 1024;

    private static final byte[] V1_PREFIX = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final int V2_FIXED_LENGTH = 16;

    private enum State { FIRST_BYTE, V1, V2, DONE, FAILED }

    private State state = State.FIRST_BYTE;
    /** The header's bytes read so far. */
    private byte[] header = new byte[V2_FIXED_LENGTH];
    private int length;
    /** A v2 header's whole length, once its fixed part is read. */
    private int v2Length = -1;

    /**
     * Reads header bytes from {@code bytes}, and no byte past the header: its position is then at the
     * first byte after it.
     *
     * @return the header once whole; null if all of {@code bytes} was read and more is needed
     * @throws ProxyHeaderException if the bytes are not a valid header (and on every call after that)
     */
    public ProxyHeader feed(ByteBuffer bytes) throws ProxyHeaderException {
        if (state == State.DONE) throw new IllegalStateException("the header has been read");
        if (state == State.FAILED) throw new ProxyHeaderException("not a PROXY protocol header");
        try {
            while (bytes.hasRemaining()) {
                var read = take(bytes.get());
                if (read != null) return read;
            }
            return null;
        } catch (ProxyHeaderException e) {
            state = State.FAILED;
            header = null;
            throw e;
        }
    }

    private ProxyHeader take(byte b) throws ProxyHeaderException {
        if (length == header.length) header = Arrays.copyOf(header, Math.min(header.length * 2, V2_FIXED_LENGTH + V2_MAX_BODY));
        header[length++] = b;
        return switch (state) {
            case FIRST_BYTE -> {
                if (b == V1_PREFIX[0]) {
                    state = State.V1;
                } else if (b == V2_SIGNATURE[0]) {
                    state = State.V2;
                } else {
                    throw new ProxyHeaderException("no PROXY protocol header: first byte 0x" + Integer.toHexString(b & 0xFF));
                }
                yield null;
            }
            case V1 -> takeV1(b);
            case V2 -> takeV2(b);
            case DONE, FAILED -> throw new IllegalStateException(state.toString());
        };
    }

    private ProxyHeader takeV1(byte b) throws ProxyHeaderException {
        if (length <= V1_PREFIX.length) {
            if (b != V1_PREFIX[length - 1]) throw new ProxyHeaderException("not a PROXY protocol v1 line");
            return null;
        }
        if (b == '\n') {
            state = State.DONE;
            return ProxyV1.parse(new String(header, 0, length, StandardCharsets.US_ASCII));
        }
        if (length == V1_MAX_LENGTH) throw new ProxyHeaderException("v1 line without CRLF within " + V1_MAX_LENGTH + " bytes");
        return null;
    }

    private ProxyHeader takeV2(byte b) throws ProxyHeaderException {
        if (length <= V2_SIGNATURE.length) {
            if (b != V2_SIGNATURE[length - 1]) throw new ProxyHeaderException("not the PROXY protocol v2 signature");
            return null;
        }
        if (length == V2_FIXED_LENGTH) {
            int body = ((header[14] & 0xFF) << 8) | (header[15] & 0xFF);
            if (body > V2_MAX_BODY) throw new ProxyHeaderException("v2 header of " + body + " bytes, more than " + V2_MAX_BODY);
            v2Length = V2_FIXED_LENGTH + body;
        }
        if (length != v2Length) return null;
        state = State.DONE;
        return parseV2();
    }

    /** Version and command, family and protocol, then the addresses (proxy-protocol.txt 2.2). */
    private ProxyHeader parseV2() throws ProxyHeaderException {
        int versionCommand = header[12] & 0xFF;
        if (versionCommand >> 4 != 2) throw new ProxyHeaderException("v2 header of version " + (versionCommand >> 4));
        int command = versionCommand & 0x0F;
        if (command > 1) throw new ProxyHeaderException("v2 command " + command + " is neither LOCAL nor PROXY");
        int family = (header[13] & 0xFF) >> 4;
        int protocol = header[13] & 0x0F;
        if (family > 3 || protocol > 2) throw new ProxyHeaderException("v2 family/protocol 0x" + Integer.toHexString(header[13] & 0xFF));
        int body = v2Length - V2_FIXED_LENGTH;
        if (command == 0) return new ProxyHeader(2, Optional.empty());  // LOCAL: the balancer's own connection
        return switch (family) {
            case 1 -> new ProxyHeader(2, Optional.of(v2Address(4, body)));
            case 2 -> new ProxyHeader(2, Optional.of(v2Address(16, body)));
            case 3 -> {  // AF_UNIX: no address the broker can use
                if (body < 216) throw new ProxyHeaderException("v2 AF_UNIX addresses in " + body + " bytes");
                yield new ProxyHeader(2, Optional.empty());
            }
            default -> new ProxyHeader(2, Optional.empty());  // AF_UNSPEC
        };
    }

    /** Source address, destination address, source port, destination port; TLVs after them are skipped. */
    private InetSocketAddress v2Address(int addressLength, int body) throws ProxyHeaderException {
        if (body < 2 * addressLength + 4) throw new ProxyHeaderException("v2 addresses in " + body + " bytes");
        var source = Arrays.copyOfRange(header, V2_FIXED_LENGTH, V2_FIXED_LENGTH + addressLength);
        int portAt = V2_FIXED_LENGTH + 2 * addressLength;
        int port = ((header[portAt] & 0xFF) << 8) | (header[portAt + 1] & 0xFF);
        try {
            // From raw bytes: no lookup. A 16-byte IPv4-mapped address stays IPv6 here.
            var address = addressLength == 4 ? InetAddress.getByAddress(source) : Inet6Address.getByAddress(null, source, -1);
            return new InetSocketAddress(address, port);
        } catch (UnknownHostException e) {
            throw new ProxyHeaderException("v2 address: " + e.getMessage());
        }
    }
}
