package dev.appliance.s3.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bounds how long a request head (request line and headers) may take to arrive, against slowloris clients that keep a
 * connection by sending a header byte every few seconds (the idle timeout alone never fires for them).
 *
 * <p>Sits before the HTTP decoder and sees raw bytes: the first bytes that arrive while no head is in progress arm a
 * timer; {@link S3ChannelHandler} disarms it when the decoder hands it the head ({@link #headReceived}) and makes the
 * next bytes arm it again once the request's last content has come ({@link #requestReceived}). When the timer runs
 * out, {@link #EXPIRED} is fired down the pipeline: {@link S3ChannelHandler} answers {@code 400 RequestTimeout} and
 * closes, or, while it is still busy with an earlier request on that connection, {@link #rearm rearms} the timer (a
 * pipelined head waiting behind a long response is not the client's delay). All methods run on the event loop.
 *
 * <p><b>ByteBuf ownership:</b> buffers are passed on untouched.
 */
final class RequestHeadTimer extends ChannelInboundHandlerAdapter {
    /** The user event fired when a head did not arrive in time. */
    static final Object EXPIRED = new Object() {
        @Override
        public String toString() {
            return "RequestHeadTimer.EXPIRED";
        }
    };

    private final long timeoutNanos;
    private ChannelHandlerContext ctx;
    private boolean awaitingHead = true;
    private ScheduledFuture<?> timer;

    RequestHeadTimer(long timeoutNanos) {
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeoutNanos: " + timeoutNanos + " (expected > 0)");
        }
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (awaitingHead && timer == null && msg instanceof ByteBuf b && b.isReadable()) {
            rearm();
        }
        ctx.fireChannelRead(msg);
    }

    /** The decoder produced a request head: no timer until that request's last content has arrived. */
    void headReceived() {
        awaitingHead = false;
        cancel();
    }

    /** The request's last content arrived: the next bytes begin a new head. */
    void requestReceived() {
        awaitingHead = true;
    }

    /** Starts (again) a full period for the head in progress. */
    void rearm() {
        cancel();
        timer = ctx.executor().schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void expire() {
        timer = null;
        if (awaitingHead && ctx.channel().isActive()) {
            ctx.fireUserEventTriggered(EXPIRED);
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }
}
