#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# Flame graph of folded stacks, as a self-contained SVG (no script, no ids,
# so that a report can inline several of them in one page):
#   analysis/flamegraph.pl [--title T] [--subtitle S] [--width PX] [--minwidth PX] FOLDED >OUT.svg
# FOLDED has one "root;caller;...;leaf COUNT" line per stack (the output of
# guest/profile.sh --fold). Each frame is a rectangle whose width
# is proportional to its sample count, stacked by call depth from the
# bottom up, siblings in name order, with the name as text and a <title>
# tooltip (name, samples, percent). Frames ending in "_[k]" are kernel
# frames and are drawn orange, user frames red, unresolved ones grey.
# Colours come from a hash of the name, so the same input always gives
# the same file. Frames narrower than --minwidth (default 0.5 px), and so
# their callees, are left out: they cannot be seen or pointed at, and they
# would make the file large. A bad line is an error that names FILE:LINE.
use strict;
use warnings;

my $title = 'Flame graph';
my $subtitle = '';
my $width = 1200;
my $min_w = 0.5;

sub usage {
	print STDERR "usage: flamegraph.pl [--title T] [--subtitle S] [--width PX] [--minwidth PX] FOLDED\n";
	exit 2;
}

while (@ARGV && $ARGV[0] =~ /^--/) {
	my $opt = shift @ARGV;
	last if $opt eq '--';
	usage() unless @ARGV;
	if ($opt eq '--title') {
		$title = shift @ARGV;
	} elsif ($opt eq '--subtitle') {
		$subtitle = shift @ARGV;
	} elsif ($opt eq '--width') {
		$width = shift @ARGV;
		usage() unless $width =~ /^\d+$/ && $width >= 200;
	} elsif ($opt eq '--minwidth') {
		$min_w = shift @ARGV;
		usage() unless $min_w =~ /^\d+(\.\d+)?$/;
	} else {
		usage();
	}
}
usage() unless @ARGV == 1;
my $file = $ARGV[0];

# A node: [name, count, {child name => node}]
my $root = ['all', 0, {}];
my $depth_max = 0;

open(my $in, '<', $file) or die "flamegraph.pl: $file: $!\n";
while (my $line = <$in>) {
	chomp $line;
	$line =~ s/\r$//;
	next if $line =~ /^\s*$/;
	my ($stack, $count) = $line =~ /^(.*\S)\s+(\d+)$/
		or die "flamegraph.pl: $file:$.: not a folded stack (want 'a;b;c COUNT'): $line\n";
	next if $count == 0;
	my @frames = split /;/, $stack;
	$root->[1] += $count;
	my $node = $root;
	for my $f (@frames) {
		$f = '[unknown]' if $f eq '';
		$node = $node->[2]{$f} //= [$f, 0, {}];
		$node->[1] += $count;
	}
	$depth_max = @frames if @frames > $depth_max;
}
close $in;

my $fh = 16;		# frame height
my $font = 11;
my $char_w = $font * 0.6;	# monospace advance
my $pad = 10;
my $top = 48;		# room for the title lines
my $total = $root->[1];
my $scale = $total ? ($width - 2 * $pad) / $total : 0;

sub esc {
	my ($s) = @_;
	$s =~ s/[^\x20-\x7e]/?/g;	# keep the file valid XML whatever the input
	$s =~ s/&/&amp;/g;
	$s =~ s/</&lt;/g;
	$s =~ s/>/&gt;/g;
	$s =~ s/"/&quot;/g;
	return $s;
}

# Deterministic 0..1 values from a name (FNV-1a).
sub hash01 {
	my ($s, $salt) = @_;
	my $h = 2166136261 ^ $salt;
	for my $c (unpack('C*', $s)) {
		$h ^= $c;
		$h = ($h * 16777619) % 4294967296;
	}
	return ($h % 1000) / 999;
}

sub colour {
	my ($name, $depth) = @_;
	my $a = hash01($name, 0);
	my $b = hash01($name, 7);
	return 'rgb(200,200,200)' if $depth == 0;
	if ($name =~ /_\[k\]$/) {
		return sprintf('rgb(%d,%d,%d)', 240 + 15 * $a, 140 + 50 * $b, 20 + 40 * $a);
	}
	return 'rgb(190,190,190)' if $name =~ /^\[.*\]$/;
	return sprintf('rgb(%d,%d,%d)', 200 + 40 * $b, 60 + 60 * $a, 60 + 30 * $b);
}

# Lay the tree out: [depth, x, width, node] per drawn frame, callers first.
my @frames_out;
my $depth_drawn = 0;

sub layout {
	no warnings 'recursion';	# deep (recursive) stacks are normal
	my ($node, $depth, $x) = @_;
	my $w = $node->[1] * $scale;
	return if $w < $min_w;
	push @frames_out, [$depth, $x, $w, $node];
	$depth_drawn = $depth if $depth > $depth_drawn;
	my $cx = $x;
	for my $k (sort keys %{$node->[2]}) {
		my $kid = $node->[2]{$k};
		layout($kid, $depth + 1, $cx);
		$cx += $kid->[1] * $scale;
	}
}

layout($root, 0, $pad) if $total;
my $height = $top + ($depth_drawn + 1) * $fh + $pad;

my @out;
for my $f (@frames_out) {
	my ($depth, $x, $w, $node) = @$f;
	my $y = $height - $pad - ($depth + 1) * $fh;
	my $name = $node->[0];
	my $label = $name;
	my $kernel = $label =~ s/_\[k\]$//;
	my $pct = 100 * $node->[1] / $total;
	my $tip = sprintf('%s%s: %d sample%s, %.2f%%', $label, $kernel ? ' [kernel]' : '',
		$node->[1], $node->[1] == 1 ? '' : 's', $pct);
	my $rect = sprintf('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" rx="1"/>',
		$x, $y, $w, $fh - 1, colour($name, $depth));
	my $text = '';
	my $fit = int(($w - 6) / $char_w);
	if ($fit >= 3) {
		$label = substr($label, 0, $fit - 2) . '..' if length($label) > $fit;
		$text = sprintf('<text x="%.1f" y="%d">%s</text>', $x + 3, $y + $fh - 4, esc($label));
	}
	push @out, sprintf('<g><title>%s</title>%s%s</g>', esc($tip), $rect, $text);
}

print qq(<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n);
printf qq(<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">\n),
	$width, $height, $width, $height;
printf qq(<rect x="0" y="0" width="%d" height="%d" fill="rgb(248,248,240)"/>\n), $width, $height;
printf qq(<text x="%d" y="20" text-anchor="middle" font-family="sans-serif" font-size="16">%s</text>\n),
	$width / 2, esc($title);
my $sub = $subtitle ne '' ? "$subtitle, " : '';
$sub .= $total ? "$total samples; width = share of samples (frames under $min_w px left out); orange kernel, red user, grey unresolved; hover for counts"
	: 'no samples';
printf qq(<text x="%d" y="38" text-anchor="middle" font-family="sans-serif" font-size="12" fill="rgb(90,90,90)">%s</text>\n),
	$width / 2, esc($sub);
printf qq(<g font-family="monospace" font-size="%d" fill="black">\n), $font;
print "$_\n" for @out;
print "</g>\n</svg>\n";
