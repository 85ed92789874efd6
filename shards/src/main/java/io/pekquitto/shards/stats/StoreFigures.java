package io.pekquitto.shards.stats;

/**
 * The store's figures at one moment (README, "When the disk fills").
 *
 * @param failing   whether writes fail now: QoS 1/2 PUBLISHes and persistent sessions are refused
 * @param bytes     the store's size on disk
 * @param freeBytes bytes free for it on its filesystem; -1 without a store on disk
 * @param refused   PUBLISHes and CONNECTs refused while it failed, since the broker started
 * @param failures  how many times it started failing since the broker started
 */
public record StoreFigures(boolean failing, long bytes, long freeBytes, long refused, long failures) {
    /** A broker without a store. */
    public static final StoreFigures NONE = new StoreFigures(false, 0, -1, 0, 0);

    /** {@code ok} or {@code failing}, as $SYS says it. */
    public String state() {
        return failing ? "failing" : "ok";
    }
}
