package io.pekquitto.shards.stats;

/**
 * The store's figures at one moment (README, "When the disk fills").
 *
 * @param kept      whether the broker has a store on disk at all
 * @param failing   whether writes fail now: QoS 1/2 PUBLISHes and persistent sessions are refused
 * @param bytes     the store's size on disk
 * @param freeBytes bytes free for it on its filesystem; -1 without a store on disk
 * @param refused   PUBLISHes and CONNECTs refused while it failed, since the broker started
 * @param failures  how many times it started failing since the broker started
 */
public record StoreFigures(boolean kept, boolean failing, long bytes, long freeBytes, long refused, long failures) {
    /** A broker without a store. */
    public static final StoreFigures NONE = new StoreFigures(false, false, 0, -1, 0, 0);

    /** {@code ok} or {@code failing}, as $SYS says it; {@code none} without a store. */
    public String state() {
        return !kept ? "none" : failing ? "failing" : "ok";
    }
}
