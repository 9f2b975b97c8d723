package dev.appliance.s3.http;

import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.ErrorMapper;
import dev.appliance.s3.error.S3Exception;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;

/**
 * One request in flight, run on a worker thread: dispatches, then writes the response (streaming GET bodies through
 * {@link ChannelOutputStream}), then tells the connection handler it is done.
 *
 * <p>The connection is closed after the response when the client asked for it, or when the request body was not
 * fully received (an early error): the unread rest of the body cannot be told apart from the next request. In the
 * second case the connection handler closes it, after reading and dropping what the client still sends (a lingering
 * close): most clients send the whole body before they read the answer, and a close while they send resets the
 * connection before they see the error.
 */
final class Exchange implements Runnable {
    private static final System.Logger LOG = System.getLogger(Exchange.class.getName());

    final S3Request request;
    final BodyStream body;
    private final S3ChannelHandler handler;
    private final Channel channel;
    private final HttpServer.Services services;
    private final boolean keepAlive;
    /** Set on the event loop when the last body byte has been received (before {@link BodyStream#end}). */
    volatile boolean requestBodyDone;
    /** The response went out before the body ended: closing the connection is the handler's (after lingering). */
    volatile boolean closeLeftToHandler;

    Exchange(
            S3ChannelHandler handler,
            Channel channel,
            HttpServer.Services services,
            S3Request request,
            BodyStream body,
            boolean keepAlive) {
        this.handler = handler;
        this.channel = channel;
        this.services = services;
        this.request = request;
        this.body = body;
        this.keepAlive = keepAlive;
    }

    @Override
    public void run() {
        S3Response response;
        try {
            response = services.dispatcher().dispatch(request);
        } catch (Throwable t) {
            response = error(t);
        }
        boolean close = send(response);
        channel.eventLoop().execute(() -> handler.exchangeDone(this, close));
    }

    private S3Response error(Throwable t) {
        S3Exception e = ErrorMapper.map(t);
        if (e.code().status() >= 500 && e.code().status() != 501) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "request " + request.requestId() + " failed: " + request.method() + " " + request.resource(),
                    t);
        }
        return Responses.errorResponse(
                e, request.resource(), request.requestId(), request.method().equals("HEAD"));
    }

    /** Writes the response; answers whether the connection is closed after it. */
    private boolean send(S3Response response) {
        boolean bodyPending = !requestBodyDone;
        boolean close = !keepAlive || bodyPending;
        closeLeftToHandler = bodyPending;
        String id = request.requestId();
        String hostId = services.ids().hostId();
        S3Response.StreamingBody streaming = response.streaming();
        try {
            if (streaming == null || request.method().equals("HEAD")) {
                ChannelFuture f = channel.writeAndFlush(Responses.full(channel.alloc(), response, id, hostId, !close));
                if (close && !bodyPending) {
                    f.addListener(ChannelFutureListener.CLOSE);
                }
                return close;
            }
            channel.write(Responses.streamingHead(response, id, hostId, !close));
            try {
                streaming.writeTo(new ChannelOutputStream(channel, handler.gate()));
            } catch (IOException | RuntimeException e) {
                // the status line is gone: all that is left is to cut the connection short
                LOG.log(System.Logger.Level.DEBUG, "response body of " + id + " aborted", e);
                channel.close();
                return true;
            }
            ChannelFuture f = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            if (close && !bodyPending) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
            return close;
        } finally {
            if (streaming != null) {
                streaming.close();
            }
        }
    }
}
