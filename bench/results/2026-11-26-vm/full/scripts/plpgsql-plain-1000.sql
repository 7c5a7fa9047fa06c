SELECT plain(1000, :client_id);
