//! The server side (ssr only): the simulation of every service, the sandboxes that hold them,
//! and the HTTP adapters over them.

pub mod api;
pub mod attacks;
pub mod broker;
pub mod calls;
pub mod classes;
pub mod config;
pub mod damage;
pub mod day;
pub mod error;
pub mod http;
pub mod invariants;
pub mod jobs;
pub mod lanes;
pub mod measure;
pub mod natural;
pub mod network;
pub mod outbox;
pub mod payments;
pub mod pipeline;
pub mod sandbox;
pub mod sandboxes;
pub mod sim;
pub mod store;
pub mod teach;
pub mod web;
pub mod world;
