package dev.appliance.s3.http;

import dev.appliance.s3.metrics.S3Metrics;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;

/**
 * Counts request and response body bytes as they pass between the HTTP codec and the connection handler: one counter
 * add per body chunk, nothing per request. Heads are not counted (their size says nothing about the data moved).
 */
final class ByteCounter extends ChannelDuplexHandler {
    private final S3Metrics metrics;

    ByteCounter(S3Metrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpContent c) {
            int n = c.content().readableBytes();
            if (n > 0) {
                metrics.bytesReceived(n);
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpContent c) {
            int n = c.content().readableBytes();
            if (n > 0) {
                metrics.bytesSent(n);
            }
        }
        ctx.write(msg, promise);
    }
}
